import { redirect } from 'next/navigation';

// GET /admin – the review queue is where reviewers start.
export default function AdminHome() {
  redirect('/admin/queue');
}
