/** Form controls and list navigation the screens share. */
import { useCallback, useState, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes } from 'react';
import { ErrorText, Loading, type Loaded } from './common';
import type { TargetOption } from './targets';

/** A choice as a <select> offers it: the value sent, and the words shown. */
export type Choice = readonly [value: string, label: string];

/** Choices from a value → words table (roles, positions, tiers). */
export const choicesOf = (labels: Record<string, string>): Choice[] => Object.entries(labels);

/** Choices from things with an id and a name (departments, projects). */
export const namedChoices = (items: ReadonlyArray<{ id: string; name: string }> | undefined): Choice[] =>
  (items ?? []).map((i) => [i.id, i.name]);

/**
 * A <select> of `choices`, first an empty one worded `empty` ("Any", "None") when given; with a
 * `label`, inside its <label> as the forms lay one out.
 */
export function Choices({
  choices,
  empty,
  label,
  ...select
}: { choices: readonly Choice[]; empty?: string; label?: string } & Omit<SelectHTMLAttributes<HTMLSelectElement>, 'children'>) {
  const control = (
    <select {...select}>
      {empty !== undefined && <option value="">{empty}</option>}
      {choices.map(([value, words]) => (
        <option key={value} value={value}>
          {words}
        </option>
      ))}
    </select>
  );
  if (label === undefined) return control;
  return (
    <label className="inline">
      {label}
      {control}
    </label>
  );
}

/** A table in a focusable, named region that scrolls sideways on a narrow screen, under a row of column heads. */
export function ScrollTable({
  label,
  className,
  columns,
  children,
}: {
  label: string;
  className: string;
  columns: string[];
  children: ReactNode;
}) {
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label={label}>
      <table className={className}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A form's primary submit button, off while `busy`, and its Cancel button. */
export function SubmitOrCancel({ submit, busy, onCancel }: { submit: string; busy: boolean; onCancel: () => void }) {
  return (
    <>
      <button type="submit" className="primary" disabled={busy}>
        {submit}
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </>
  );
}

/** An <input> inside its <label>, taking the row's free width. */
export function TextField({ label, ...input }: { label: string } & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <label className="inline grow">
      {label}
      <input {...input} />
    </label>
  );
}

/** A name typed or picked from suggestions (people, groups, departments as useTargets finds them). */
export function NamePicker({
  listId,
  value,
  onChange,
  options,
  required = false,
}: {
  listId: string;
  value: string;
  onChange: (value: string) => void;
  options: readonly TargetOption[];
  required?: boolean;
}) {
  return (
    <>
      <input list={listId} value={value} onChange={(e) => onChange(e.target.value)} required={required} autoComplete="off" />
      <datalist id={listId}>
        {options.map((o) => (
          <option key={o.id} value={o.label} />
        ))}
      </datalist>
    </>
  );
}

/** A form's text fields: their values, and `field(k)`, which ties field `k` to a control's value and onChange. */
export function useFields<F extends Record<string, string>>(initial: F) {
  const [values, setValues] = useState(initial);
  const field = (k: keyof F) => ({
    value: values[k],
    onChange: (e: { target: { value: string } }) => setValues((v) => ({ ...v, [k]: e.target.value })),
  });
  return { values, setValues, field };
}

/**
 * The filters of a list read a page at a time, and the page's offset, which goes back to the first
 * page whenever a filter changes; `bind(k)` ties filter `k` to a control's value and onChange.
 */
export function useFilteredPages<F extends Record<string, string>>(initial: F) {
  const [filters, setFilters] = useState(initial);
  const [offset, setOffset] = useState(0);
  const set = useCallback((k: keyof F, v: string) => {
    setFilters((f) => ({ ...f, [k]: v }));
    setOffset(0);
  }, []);
  const bind = (k: keyof F) => ({ value: filters[k], onChange: (e: { target: { value: string } }) => set(k, e.target.value) });
  return { filters, set, bind, offset, setOffset };
}

/** Previous and next page of a list read `page` at a time from `offset`, and where in the `total` it is. */
export function Pager({
  label,
  offset,
  page,
  total,
  none = '',
  onOffset,
}: {
  label: string;
  offset: number;
  page: number;
  total: number;
  /** What to say when nothing matches. */
  none?: string;
  onOffset: (offset: number) => void;
}) {
  return (
    <nav className="row pager" aria-label={label}>
      <button type="button" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - page))}>
        Previous page
      </button>
      <span className="muted" role="status">
        {total === 0 ? none : `${offset + 1}–${Math.min(offset + page, total)} of ${total}`}
      </span>
      <button type="button" disabled={offset + page >= total} onClick={() => onOffset(offset + page)}>
        Next page
      </button>
    </nav>
  );
}

/** A list's state in words: loading (before its first answer), its error, or that it is empty. */
export function ListStatus({
  loaded,
  what,
  count,
  none,
}: {
  loaded: Loaded<unknown>;
  what: string;
  count: number | undefined;
  none: string;
}) {
  return (
    <>
      {loaded.loading && !loaded.data && <Loading what={what} />}
      <ErrorText>{loaded.error}</ErrorText>
      {count === 0 && <p className="muted">{none}</p>}
    </>
  );
}

/** Cards, one per item, each with a Manage button that opens the item's `detail` under it (one card open at a time). */
export function ManagedCards<T extends { id: string; name: string }>({
  items,
  className = 'plain-list',
  heading,
  extra,
  detail,
}: {
  items: readonly T[] | undefined;
  className?: string;
  /** What the card's first row shows before its button. */
  heading: (item: T) => ReactNode;
  /** Shown under that row, open or not. */
  extra?: (item: T) => ReactNode;
  detail: (item: T) => ReactNode;
}) {
  const [open, setOpen] = useState<string | null>(null);
  return (
    <ul className={className}>
      {items?.map((item) => (
        <li key={item.id} className="card">
          <div className="row wrap">
            {heading(item)}
            <button type="button" aria-expanded={open === item.id} onClick={() => setOpen(open === item.id ? null : item.id)}>
              {open === item.id ? `Close ${item.name}` : `Manage ${item.name}`}
            </button>
          </div>
          {extra?.(item)}
          {open === item.id && detail(item)}
        </li>
      ))}
    </ul>
  );
}
