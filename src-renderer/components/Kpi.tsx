export function Kpi({ label, value, title, testId }: { label: string; value: string; title?: string; testId?: string }) {
  return (
    <div className="kpi" title={title ?? value}>
      <div className="label">{label}</div>
      <div className="value" data-testid={testId}>
        {value}
      </div>
    </div>
  );
}
