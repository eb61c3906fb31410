import { SimpleGrid, Stack, Text } from "@mantine/core";
import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { EnergySeries } from "./energies";

export interface EnergyPlotsProps {
  series: EnergySeries;
  labels: { time: string; potentialEnergy: string; temperature: string; density: string; box: string };
}

/** Potential energy, temperature, density and (when recorded) the box side over time (uPlot; this
 * module is loaded lazily). */
export default function EnergyPlots({ series, labels }: EnergyPlotsProps) {
  return (
    <SimpleGrid cols={{ base: 1, md: 2, xl: series.boxA ? 4 : 3 }} spacing="lg">
      <Plot time={series.time} values={series.potentialEnergy} xLabel={labels.time} yLabel={labels.potentialEnergy} />
      <Plot time={series.time} values={series.temperature} xLabel={labels.time} yLabel={labels.temperature} />
      <Plot time={series.time} values={series.density} xLabel={labels.time} yLabel={labels.density} />
      {series.boxA ? <Plot time={series.time} values={series.boxA} xLabel={labels.time} yLabel={labels.box} /> : null}
    </SimpleGrid>
  );
}

const PLOT_HEIGHT = 220;

/** One line plot of values against x (time, or any other abscissa). */
export function Plot({
  time,
  values,
  xLabel,
  yLabel,
  testId = "energy-plot",
}: {
  time: number[];
  values: number[];
  xLabel: string;
  yLabel: string;
  testId?: string;
}) {
  const container = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const plot = new uPlot(
      {
        width: Math.max(element.clientWidth, 240),
        height: PLOT_HEIGHT,
        legend: { show: false },
        scales: { x: { time: false } },
        axes: [{ label: xLabel }, { label: yLabel, size: 70 }],
        series: [{}, { label: yLabel, stroke: "#1c7ed6", width: 1.5 }],
      },
      [time, values],
      element,
    );
    const resize = new ResizeObserver(() =>
      plot.setSize({ width: Math.max(element.clientWidth, 240), height: PLOT_HEIGHT }),
    );
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [time, values, xLabel, yLabel]);

  return (
    <Stack gap={4}>
      <Text size="sm" fw={600}>
        {yLabel}
      </Text>
      <div ref={container} role="img" aria-label={yLabel} data-testid={testId} />
    </Stack>
  );
}
