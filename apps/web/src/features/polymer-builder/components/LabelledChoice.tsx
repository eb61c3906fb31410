import { SegmentedControl, Stack, Text } from "@mantine/core";

/** A form field of a few choices: a SegmentedControl under its label (Mantine's control has none). */
export function LabelledChoice<V extends string>({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: V;
  options: Array<{ value: V; label: string }>;
  onChange: (value: V) => void;
}) {
  return (
    <Stack gap={4}>
      <Text size="sm" fw={500}>
        {label}
      </Text>
      <SegmentedControl w="fit-content" value={value} onChange={(next) => onChange(next as V)} data={options} />
    </Stack>
  );
}
