/** One catalog parameter as a labelled control, with its type, allowed values, default, description and error. */
import type { JSX } from 'preact';
import type { Param } from '../catalog.ts';

export interface ParamFieldProps {
  readonly param: Param;
  readonly value: string;
  readonly onInput: (value: string) => void;
  /** Filled parameters that exclude this one; the control is disabled while it is empty and they are filled. */
  readonly excludedBy: readonly string[];
  /** The API's message about this field, if the last estimate or run blamed it. */
  readonly error?: string | undefined;
}

const typeText = (p: Param) => `${p.type}${p.list ? ', comma-separated list' : ''}`;

export function ParamField({ param: p, value, onInput, excludedBy, error }: ParamFieldProps) {
  const id = `p-${p.name}`;
  const blocked = excludedBy.length > 0 && value.trim() === '';
  const clash = excludedBy.length > 0 && value.trim() !== '';
  const describedBy = [`${id}-help`, error || clash ? `${id}-err` : ''].filter(Boolean).join(' ');
  const common = {
    id,
    name: p.name,
    disabled: blocked,
    'aria-invalid': error || clash ? true : undefined,
    'aria-describedby': describedBy,
    'aria-required': p.required,
  };
  let control: JSX.Element;
  if (p.enum || p.type === 'boolean') {
    const options = p.enum ?? ['true', 'false'];
    control = (
      <select {...common} value={value} onChange={(e) => onInput((e.target as HTMLSelectElement).value)}>
        <option value="">{p.default !== undefined ? `(default: ${String(p.default)})` : p.required ? '(choose)' : '(any)'}</option>
        {options.map((o) => (
          <option key={String(o)} value={String(o)}>
            {String(o)}
          </option>
        ))}
      </select>
    );
  } else {
    control = (
      <input
        {...common}
        type="text"
        inputMode={p.type === 'integer' || p.type === 'number' ? 'decimal' : undefined}
        value={value}
        placeholder={p.default !== undefined ? String(p.default) : ''}
        onInput={(e) => onInput((e.target as HTMLInputElement).value)}
      />
    );
  }
  return (
    <div class={`field${error || clash ? ' has-error' : ''}${blocked ? ' blocked' : ''}`} data-param={p.name}>
      <label for={id}>
        <code>{p.name}</code>
        {p.required ? <span class="req"> required</span> : null}
      </label>
      {control}
      <p id={`${id}-help`} class="help">
        <span class="type">{typeText(p)}</span>
        {p.default !== undefined ? (
          <>
            {' '}
            · default <code>{String(p.default)}</code>
          </>
        ) : null}
        {p.minimum !== undefined ? <> · at least {p.minimum}</> : null}
        {p.networks ? <> · only on {p.networks.join(', ')}</> : null}
        {p.exclusiveWith.length ? <> · not with {p.exclusiveWith.join(', ')}</> : null}
        {' · '}
        {p.description}
      </p>
      {error ? (
        <p id={`${id}-err`} class="error" role="alert">
          {error}
        </p>
      ) : clash ? (
        <p id={`${id}-err`} class="error" role="alert">
          {p.name} cannot be combined with {excludedBy.join(', ')}: clear one of them.
        </p>
      ) : blocked ? (
        <p class="note">
          Disabled while {excludedBy.join(', ')} {excludedBy.length > 1 ? 'are' : 'is'} set.
        </p>
      ) : null}
    </div>
  );
}
