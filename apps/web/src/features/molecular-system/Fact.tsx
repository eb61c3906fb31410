import { Stack, Text } from "@mantine/core";

/** One labelled figure of a summary (what a structure holds, what a potential found). */
export function Fact({ label, value }: { label: string; value: string }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed" tt="uppercase">
        {label}
      </Text>
      <Text fw={500}>{value}</Text>
    </Stack>
  );
}
