import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip } from "chart.js";
import { useEffect, useRef } from "preact/hooks";

Chart.register(LineController, LineElement, PointElement, BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

const PALETTE = ["#2453b3", "#c2410c", "#15803d", "#7e22ce", "#b91c1c", "#0e7490", "#a16207", "#be185d"];

export interface Series {
  readonly label: string;
  readonly data: ReadonlyArray<number | null>;
}

export interface ChartProps {
  readonly title: string;
  readonly kind: "line" | "bar";
  readonly labels: readonly string[];
  readonly series: readonly Series[];
  /** The y axis's unit, shown on it and in the table. */
  readonly unit: string;
  readonly stacked?: boolean;
  /** Rows of the data table (the latest ones); all by default. */
  readonly tableRows?: number;
}

const format = (value: number | null): string => (value === null ? "–" : Number.isInteger(value) ? String(value) : value.toFixed(value < 10 ? 2 : 1));

/**
 * A Chart.js chart with a caption, and its numbers in a table under it for screen readers and
 * keyboards (the canvas itself says where they are).
 */
export function ChartFigure(props: ChartProps) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart | null>(null);
  const datasets = () =>
    props.series.map((s, i) => ({
      label: s.label,
      data: [...s.data],
      borderColor: PALETTE[i % PALETTE.length],
      backgroundColor: PALETTE[i % PALETTE.length],
      pointRadius: props.kind === "line" ? 1.5 : 0,
      spanGaps: true,
    }));

  useEffect(() => {
    chart.current = new Chart(canvas.current!, {
      type: props.kind,
      data: { labels: [...props.labels], datasets: datasets() },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: {
          x: { stacked: props.stacked ?? false },
          y: { stacked: props.stacked ?? false, beginAtZero: true, title: { display: true, text: props.unit } },
        },
        plugins: { legend: { position: "bottom" } },
      },
    });
    return () => chart.current?.destroy();
  }, [props.kind, props.stacked]);

  useEffect(() => {
    const current = chart.current;
    if (!current) return;
    current.data.labels = [...props.labels];
    current.data.datasets = datasets();
    current.update("none");
  }, [props.labels, props.series]);

  const first = props.tableRows === undefined ? 0 : Math.max(0, props.labels.length - props.tableRows);
  const rows = props.labels.map((label, i) => ({ label, i })).slice(first);
  return (
    <figure class="card" aria-labelledby={`${props.title}-caption`}>
      <h2 id={`${props.title}-caption`}>{props.title}</h2>
      <div class="chart">
        <canvas ref={canvas} role="img" aria-label={`${props.title} (${props.unit}); the numbers are in the data table below`} />
      </div>
      <details>
        <summary>Data table</summary>
        <table data-chart={props.title}>
          <thead>
            <tr>
              <th scope="col">{props.kind === "line" ? "time" : "group"}</th>
              {props.series.map((s) => (
                <th scope="col" class="num">
                  {s.label} ({props.unit})
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map(({ label, i }) => (
              <tr>
                <th scope="row">{label}</th>
                {props.series.map((s) => (
                  <td class="num">{format(s.data[i] ?? null)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
