/** JSON, pretty-printed, as text (never as markup). */
export function JsonView({ value, label }: { value: unknown; label?: string }) {
  return (
    <pre class="json" aria-label={label}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}
