import { Card, Grid, Stack, Title } from "@mantine/core";
import type { ReactNode } from "react";

/** A step's form on the left and its summary column on the right. */
export function StepLayout({
  main,
  summaryTitle,
  summary,
}: {
  main: ReactNode;
  summaryTitle: string;
  summary: ReactNode;
}) {
  return (
    <Grid gutter="lg">
      <Grid.Col span={{ base: 12, md: 8 }}>
        <Stack>{main}</Stack>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 4 }}>
        <Card withBorder padding="md" component="aside" aria-label={summaryTitle}>
          <Stack gap="xs">
            <Title order={4}>{summaryTitle}</Title>
            {summary}
          </Stack>
        </Card>
      </Grid.Col>
    </Grid>
  );
}
