import { useEffect, useState } from 'preact/hooks';
import type { JsonValue } from '../protocol/wire.types.js';
import {
  choicesOf,
  fieldKindOf,
  inputTypeOf,
  isSchema,
  labelOf,
  propertiesOf,
  type Schema,
} from './json-schema.util.js';

/** A form control for one value of a schema. `undefined` means "not given" (left out of the arguments). */
interface FieldProps {
  /** The property name, or a path for nested values; also the control's id. */
  path: string;
  name: string;
  schema: Schema;
  required: boolean;
  value: JsonValue | undefined;
  onChange: (value: JsonValue | undefined) => void;
}

/**
 * A form for a JSON Schema (2020-12): strings (with `format`), numbers, integers, booleans, enums (`enum`, or titled
 * `oneOf`/`anyOf` of `const`), arrays (of choices as checkboxes, of anything else as a list), nested objects, `required`
 * and `default`. What a control cannot express (`$ref`, `anyOf`, tuples, maps…) is edited as JSON in place.
 */
export function SchemaForm({
  id,
  schema,
  value,
  onChange,
}: {
  id: string;
  schema: Schema;
  value: JsonValue | undefined;
  onChange: (value: JsonValue | undefined) => void;
}) {
  return <Field path={id} name="" schema={schema} required value={value} onChange={onChange} />;
}

function Field(props: FieldProps) {
  switch (fieldKindOf(props.schema)) {
    case 'object':
      return <ObjectField {...props} />;
    case 'string':
      return <TextField {...props} />;
    case 'number':
    case 'integer':
      return <NumberField {...props} />;
    case 'boolean':
      return <BooleanField {...props} />;
    case 'choice':
      return <ChoiceField {...props} />;
    case 'multi-choice':
      return <MultiChoiceField {...props} />;
    case 'array':
      return <ArrayField {...props} />;
    default:
      return <RawField {...props} />;
  }
}

/** The label and description around a control. */
function Labelled({ path, name, schema, required, children }: FieldProps & { children: preact.ComponentChildren }) {
  const description = typeof schema.description === 'string' ? schema.description : undefined;
  return (
    <div class="field" data-field={path}>
      {name !== '' && (
        <label for={path}>
          {labelOf(name, schema)}
          {required && (
            <span class="required" title="required">
              {' '}
              *
            </span>
          )}
        </label>
      )}
      {children}
      {description && <small class="hint">{description}</small>}
    </div>
  );
}

function ObjectField(props: FieldProps) {
  // A plain object is what an object schema's value is; anything else (a stale raw value) starts it empty.
  const object = isSchema(props.value) ? props.value : {};
  const set = (name: string, child: JsonValue | undefined) => {
    const next: Record<string, JsonValue> = { ...object };
    if (child === undefined) delete next[name];
    else next[name] = child;
    props.onChange(next);
  };
  const fields = propertiesOf(props.schema).map((property) => (
    <Field
      key={property.name}
      path={`${props.path}.${property.name}`}
      name={property.name}
      schema={property.schema}
      required={property.required}
      value={object[property.name]}
      onChange={(child) => set(property.name, child)}
    />
  ));
  if (props.name === '') return <div class="object">{fields}</div>;
  return (
    <fieldset class="object" data-field={props.path}>
      <legend>
        {labelOf(props.name, props.schema)}
        {props.required && <span class="required"> *</span>}
      </legend>
      {typeof props.schema.description === 'string' && <small class="hint">{props.schema.description}</small>}
      {fields}
    </fieldset>
  );
}

function TextField(props: FieldProps) {
  const { schema } = props;
  return (
    <Labelled {...props}>
      <input
        id={props.path}
        // Preact types each input type's attributes apart; these four share the ones used here.
        type={inputTypeOf(schema) as 'text'}
        value={typeof props.value === 'string' ? props.value : ''}
        required={props.required}
        minLength={typeof schema.minLength === 'number' ? schema.minLength : undefined}
        maxLength={typeof schema.maxLength === 'number' ? schema.maxLength : undefined}
        pattern={typeof schema.pattern === 'string' ? schema.pattern : undefined}
        placeholder={schema.format === 'date-time' ? 'YYYY-MM-DDThh:mm:ssZ' : undefined}
        onInput={(event) => {
          const text = event.currentTarget.value;
          props.onChange(text === '' && !props.required ? undefined : text);
        }}
      />
    </Labelled>
  );
}

function NumberField(props: FieldProps) {
  const { schema } = props;
  // The text is kept as typed ("1." or "-" are on their way to a number); the value is the number it reads as.
  const [text, setText] = useState(typeof props.value === 'number' ? String(props.value) : '');
  useEffect(() => {
    if (typeof props.value === 'number' && Number(text) !== props.value) setText(String(props.value));
    if (props.value === undefined && text !== '' && !Number.isNaN(Number(text))) setText('');
  }, [props.value]);
  return (
    <Labelled {...props}>
      <input
        id={props.path}
        type="number"
        value={text}
        required={props.required}
        step={schema.type === 'integer' ? 1 : 'any'}
        min={typeof schema.minimum === 'number' ? schema.minimum : undefined}
        max={typeof schema.maximum === 'number' ? schema.maximum : undefined}
        onInput={(event) => {
          const typed = event.currentTarget.value;
          setText(typed);
          props.onChange(typed === '' ? undefined : Number(typed));
        }}
      />
    </Labelled>
  );
}

function BooleanField(props: FieldProps) {
  return (
    <div class="field checkbox" data-field={props.path}>
      <label>
        <input
          id={props.path}
          type="checkbox"
          checked={props.value === true}
          onChange={(event) => props.onChange(event.currentTarget.checked)}
        />{' '}
        {labelOf(props.name, props.schema)}
      </label>
      {typeof props.schema.description === 'string' && <small class="hint">{props.schema.description}</small>}
    </div>
  );
}

function ChoiceField(props: FieldProps) {
  const choices = choicesOf(props.schema) ?? [];
  const index = choices.findIndex((choice) => JSON.stringify(choice.value) === JSON.stringify(props.value));
  return (
    <Labelled {...props}>
      <select
        id={props.path}
        required={props.required}
        value={index >= 0 ? String(index) : ''}
        onChange={(event) => {
          const picked = event.currentTarget.value;
          props.onChange(picked === '' ? undefined : choices[Number(picked)].value);
        }}
      >
        <option value="">—</option>
        {choices.map((choice, position) => (
          <option key={position} value={String(position)}>
            {choice.label}
          </option>
        ))}
      </select>
    </Labelled>
  );
}

function MultiChoiceField(props: FieldProps) {
  const choices = choicesOf(props.schema.items as Schema) ?? [];
  const picked = Array.isArray(props.value) ? props.value : [];
  const has = (value: JsonValue) => picked.some((entry) => JSON.stringify(entry) === JSON.stringify(value));
  return (
    <Labelled {...props}>
      <div class="choices" id={props.path}>
        {choices.map((choice, position) => (
          <label key={position}>
            <input
              type="checkbox"
              checked={has(choice.value)}
              onChange={(event) => {
                const next = event.currentTarget.checked
                  ? [...picked, choice.value]
                  : picked.filter((entry) => JSON.stringify(entry) !== JSON.stringify(choice.value));
                props.onChange(next.length === 0 && !props.required ? undefined : next);
              }}
            />{' '}
            {choice.label}
          </label>
        ))}
      </div>
    </Labelled>
  );
}

function ArrayField(props: FieldProps) {
  const items = Array.isArray(props.value) ? props.value : [];
  const itemSchema = props.schema.items as Schema;
  const set = (next: Array<JsonValue | undefined>) =>
    props.onChange(next.filter((item): item is JsonValue => item !== undefined));
  return (
    <fieldset class="array" data-field={props.path}>
      <legend>
        {labelOf(props.name, props.schema)}
        {props.required && <span class="required"> *</span>}
      </legend>
      {items.map((item, index) => (
        <div class="array-item" key={index}>
          <Field
            path={`${props.path}[${index}]`}
            name={`#${index + 1}`}
            schema={itemSchema}
            required
            value={item}
            onChange={(value) => set(items.map((old, position) => (position === index ? value : old)))}
          />
          <button type="button" class="small" onClick={() => set(items.filter((_, position) => position !== index))}>
            Remove
          </button>
        </div>
      ))}
      <button type="button" class="small" onClick={() => props.onChange([...items, defaultItem(itemSchema)])}>
        Add
      </button>
    </fieldset>
  );
}

/** A new array item: its default, or the empty value of its kind. */
function defaultItem(schema: Schema): JsonValue {
  if ('default' in schema) return schema.default;
  switch (fieldKindOf(schema)) {
    case 'object':
      return {};
    case 'boolean':
      return false;
    case 'number':
    case 'integer':
      return 0;
    case 'array':
    case 'multi-choice':
      return [];
    default:
      return '';
  }
}

/** JSON text for what no control expresses; invalid JSON is shown, and keeps the last valid value. */
function RawField(props: FieldProps) {
  const [text, setText] = useState(props.value === undefined ? '' : JSON.stringify(props.value, null, 2));
  const [problem, setProblem] = useState<string>();
  return (
    <Labelled {...props}>
      <textarea
        id={props.path}
        class="json"
        rows={3}
        placeholder="JSON"
        value={text}
        onInput={(event) => {
          const typed = event.currentTarget.value;
          setText(typed);
          if (typed.trim() === '') {
            setProblem(undefined);
            props.onChange(undefined);
            return;
          }
          try {
            props.onChange(JSON.parse(typed) as JsonValue);
            setProblem(undefined);
          } catch (error) {
            setProblem((error as Error).message);
          }
        }}
      />
      {problem && <small class="problem">{problem}</small>}
    </Labelled>
  );
}
