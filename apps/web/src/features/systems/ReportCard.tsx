import { Card, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";

/** A card of the results read from report.json: its title, a line on what it shows, then the body. */
export function ReportCard({ title, note, children }: { title: string; note: string; children: ReactNode }) {
  return (
    <Card withBorder radius="md">
      <Title order={5} mb={4}>
        {title}
      </Title>
      <Text size="xs" c="dimmed" mb="sm">
        {note}
      </Text>
      {children}
    </Card>
  );
}
