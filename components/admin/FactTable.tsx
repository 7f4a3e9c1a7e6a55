/** Measurements with value, threshold, verdict and a sentence of meaning; stacks into cards on a phone. */
import type { Fact } from '@/lib/domain/admin/evidence';
import { Table, Th, THead, Verdict } from './ui';

export function FactTable(props: { facts: Fact[]; caption: string }) {
  if (props.facts.length === 0) return null;
  return (
    <Table>
      <caption className="sr-only">{props.caption}</caption>
      <THead className="hidden border-b border-neutral-200 text-neutral-800 md:table-header-group">
        <tr>
          <Th density="column" nowrap strong>
            Check
          </Th>
          <Th density="column" nowrap strong>
            Measured
          </Th>
          <Th density="column" nowrap strong>
            Threshold
          </Th>
          <Th density="column" nowrap strong>
            Result
          </Th>
        </tr>
      </THead>
      <tbody className="divide-y divide-neutral-200">
        {props.facts.map((f) => (
          <tr key={f.key} className="block py-2 md:table-row md:py-0" data-check={f.key}>
            <th scope="row" className="block pr-3 align-top font-medium text-neutral-950 md:table-cell md:py-2">
              {f.label}
              <span className="mt-0.5 block text-xs font-normal text-neutral-700">{f.meaning}</span>
            </th>
            <td className="block pr-3 align-top text-neutral-950 [overflow-wrap:anywhere] md:table-cell md:py-2">
              <span className="text-neutral-700 md:sr-only">Measured: </span>
              {f.value}
            </td>
            <td className="block pr-3 align-top text-neutral-950 md:table-cell md:py-2">
              {f.threshold ? (
                <>
                  <span className="text-neutral-700 md:sr-only">Threshold: </span>
                  {f.threshold}
                </>
              ) : null}
            </td>
            <td className="block align-top md:table-cell md:py-2">
              <Verdict passed={f.passed} />
            </td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
