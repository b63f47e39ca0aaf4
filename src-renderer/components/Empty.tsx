// The explicit empty state every chart and table shows when it has nothing to draw.
export function Empty({ text = 'No data yet', testId }: { text?: string; testId?: string }) {
  return (
    <div className="empty" data-testid={testId}>
      {text}
    </div>
  );
}
