/** docs/api.md "Duplicates" rules on the search itself, over stored faces (real Postgres, pgvector). */
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { EMBEDDING_DIMENSIONS, faceEmbeddings, verifications } from '@/lib/db/schema';
import { makeWorkspace } from '@/test/helpers/factories';
import { randomToken, uuidv7 } from '@/lib/core/ids';
import { FIRST_DEPTH, findDuplicates, PAGE_DEPTH, searchStrategy, tuneSearch } from '.';

const DIM = EMBEDDING_DIMENSIONS;
function unit(seed: number) {
  let s = seed;
  const v = Array.from({ length: DIM }, () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff - 0.5);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}
/** A face at a chosen cosine similarity to `base` (mixing in an orthogonalised random direction). */
function at(base: number[], similarity: number, seed: number) {
  const r = unit(seed);
  const dot = r.reduce((a, x, i) => a + x * base[i], 0);
  const o = r.map((x, i) => x - dot * base[i]);
  const n = Math.hypot(...o);
  return base.map((b, i) => similarity * b + Math.sqrt(1 - similarity ** 2) * (o[i] / n));
}

describe('findDuplicates', () => {
  it('lists at most 10 accounts closest first, counts them all, one per account at its strongest, excludes own account and other scopes', async () => {
    const db = getDb();
    const w = await makeWorkspace();
    const other = await makeWorkspace();
    const probe = unit(1);
    const add = async (
      ws: string,
      mode: 'test' | 'live',
      externalId: string | null,
      emb: number[],
      approved = true,
    ) => {
      const id = uuidv7();
      await db.insert(verifications).values({
        id,
        workspaceId: ws,
        mode,
        status: approved ? 'approved' : 'declined',
        flow: 'age',
        checkMethod: 'estimation',
        externalId,
        captureTokenHash: randomToken(),
        completedAt: new Date(),
      });
      await db
        .insert(faceEmbeddings)
        .values({ verificationId: id, workspaceId: ws, mode, externalId, account: externalId ?? id, embedding: emb });
      return id;
    };
    // 12 matching accounts at 0.95, 0.94, ... 0.84; account acct-0 twice (0.80 and its strongest 0.95).
    for (let i = 0; i < 12; i++)
      await add(w.workspace.id, 'live', `acct-${i}`, at(probe, 0.95 - i * 0.01, 100 + i), i % 2 === 0);
    await add(w.workspace.id, 'live', 'acct-0', at(probe, 0.8, 200));
    const anonymous = await add(w.workspace.id, 'live', null, at(probe, 0.7, 300));
    await add(w.workspace.id, 'live', 'acct-far', at(probe, 0.3, 400)); // below the threshold
    await add(w.workspace.id, 'live', 'mine', at(probe, 0.99, 500)); // the probe's own account
    await add(w.workspace.id, 'test', 'acct-test', at(probe, 0.99, 600)); // other mode
    await add(other.workspace.id, 'live', 'acct-other', at(probe, 0.99, 700)); // other workspace
    const self = uuidv7();
    const r = await db.transaction(async (tx) => {
      await tuneSearch(tx);
      return findDuplicates(tx, {
        workspaceId: w.workspace.id,
        mode: 'live',
        verificationId: self,
        externalId: 'mine',
        embedding: probe,
        threshold: 0.68,
      });
    });
    expect(r.checked).toBe(true);
    expect(r.duplicate_count).toBe(13); // 12 accounts + the anonymous verification
    expect(r.duplicates).toHaveLength(10);
    expect(r.duplicates.map((d) => d.external_id)).toEqual(Array.from({ length: 10 }, (_, i) => `acct-${i}`));
    expect(r.duplicates[0].similarity_score).toBeCloseTo(0.95, 3);
    expect(r.duplicates[0].verified_at).not.toBeNull();
    expect(r.duplicates[1].verified_at).toBeNull(); // declined: not verified
    expect(r.duplicates.some((d) => d.verification_id === anonymous)).toBe(false); // 11th+ not listed
  });

  it('counts every matching account when more match than one page holds (it reads on, page by page), through either strategy, twice in one transaction', async () => {
    const db = getDb();
    const w = await makeWorkspace();
    const probe = unit(2);
    const n = FIRST_DEPTH + PAGE_DEPTH + 30; // three pages
    const rows = Array.from({ length: n }, (_, i) => ({
      id: uuidv7(),
      acct: `many-${i}`,
      emb: at(probe, 0.9 - (i % 20) * 0.005, 1000 + i),
    }));
    await db.insert(verifications).values(
      rows.map((r) => ({
        id: r.id,
        workspaceId: w.workspace.id,
        mode: 'live' as const,
        status: 'approved' as const,
        flow: 'age' as const,
        checkMethod: 'estimation' as const,
        externalId: r.acct,
        captureTokenHash: randomToken(),
        completedAt: new Date(),
      })),
    );
    await db.insert(faceEmbeddings).values(
      rows.map((r) => ({
        verificationId: r.id,
        workspaceId: w.workspace.id,
        mode: 'live' as const,
        externalId: r.acct,
        account: r.acct,
        embedding: r.emb,
      })),
    );
    const input = {
      workspaceId: w.workspace.id,
      mode: 'live' as const,
      verificationId: uuidv7(),
      externalId: null,
      embedding: probe,
      threshold: 0.68,
    };
    // The same transaction searches twice (as the pipeline may): each search leaves no cursor behind. The search
    // sets its own HNSW settings (no tuneSearch first).
    const [exact, index] = await db.transaction(async (tx) => {
      const first = await findDuplicates(tx, input, 'exact');
      // The HNSW graph walked whatever the planner thinks of a table this small: without the search's settings (a
      // deeper candidate list, pgvector's iterative scan) the walk would stop at 40 faces.
      await tx.execute(sql`set local enable_sort = off`);
      return [first, await findDuplicates(tx, input, 'index')];
    });
    for (const r of [exact, index]) {
      expect(r.duplicate_count).toBe(n);
      expect(r.duplicates).toHaveLength(10);
      expect(r.duplicates[0].similarity_score).toBeCloseTo(0.9, 2);
      expect(r.duplicates[0].verified_at).not.toBeNull();
    }
  });

  it('reports no duplicates, checked, when nothing is stored in the scope', async () => {
    const w = await makeWorkspace();
    const r = await findDuplicates(getDb(), {
      workspaceId: w.workspace.id,
      mode: 'live',
      verificationId: uuidv7(),
      externalId: null,
      embedding: unit(3),
      threshold: 0.68,
    });
    expect(r).toEqual({ checked: true, duplicate_count: 0, duplicates: [] });
  });
  it('searches a workspace that is a small part of the shared index exactly: every face of it, whatever lies nearer in others', async () => {
    const db = getDb();
    const ours = await makeWorkspace();
    const crowd = await makeWorkspace();
    const probe = unit(4);
    const add = async (ws: string, embs: number[][]) => {
      const rows = embs.map((emb) => ({ id: uuidv7(), emb }));
      await db.insert(verifications).values(
        rows.map((r) => ({
          id: r.id,
          workspaceId: ws,
          mode: 'live' as const,
          status: 'approved' as const,
          flow: 'age' as const,
          checkMethod: 'estimation' as const,
          captureTokenHash: randomToken(),
          completedAt: new Date(),
        })),
      );
      await db.insert(faceEmbeddings).values(
        rows.map((r) => ({
          verificationId: r.id,
          workspaceId: ws,
          mode: 'live' as const,
          account: r.id,
          embedding: r.emb,
        })),
      );
      return rows.map((r) => r.id);
    };
    // Another workspace's 400 faces all nearer the probe than ours: a walk of the graph meets them first.
    await add(
      crowd.workspace.id,
      Array.from({ length: 400 }, (_, i) => at(probe, 0.97 + (i % 20) * 0.001, 5000 + i)),
    );
    const mine = await add(
      ours.workspace.id,
      Array.from({ length: 8 }, (_, i) => at(probe, 0.95 - i * 0.002, 9000 + i)),
    );
    expect(await searchStrategy(db, { workspaceId: ours.workspace.id, mode: 'live' })).toBe('exact');
    const chosen = await db.transaction(async (tx) => {
      await tuneSearch(tx);
      return findDuplicates(tx, {
        workspaceId: ours.workspace.id,
        mode: 'live',
        verificationId: uuidv7(),
        externalId: null,
        embedding: probe,
        threshold: 0.9,
      });
    });
    expect(chosen.duplicate_count).toBe(8);
    expect(chosen.duplicates.map((d) => d.verification_id).sort()).toEqual([...mine].sort());
  }, 120_000);

  it('chooses the HNSW index once a workspace holds more faces than an exact scan should read', async () => {
    const db = getDb();
    const w = await makeWorkspace();
    const ids = Array.from({ length: 4 }, () => uuidv7());
    await db.insert(verifications).values(
      ids.map((id) => ({
        id,
        workspaceId: w.workspace.id,
        mode: 'live' as const,
        status: 'approved' as const,
        flow: 'age' as const,
        checkMethod: 'estimation' as const,
        captureTokenHash: randomToken(),
      })),
    );
    await db.insert(faceEmbeddings).values(
      ids.map((id, i) => ({
        verificationId: id,
        workspaceId: w.workspace.id,
        mode: 'live' as const,
        account: id,
        embedding: unit(50 + i),
      })),
    );
    expect(await searchStrategy(db, { workspaceId: w.workspace.id, mode: 'live' }, Date.now(), 4)).toBe('exact');
    expect(await searchStrategy(db, { workspaceId: w.workspace.id, mode: 'live' }, Date.now(), 3)).toBe('index');
    expect(await searchStrategy(db, { workspaceId: w.workspace.id, mode: 'test' }, Date.now(), 3)).toBe('exact');
  });
});
