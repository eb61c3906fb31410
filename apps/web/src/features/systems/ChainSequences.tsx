import { Stack, Text } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { drawnChains } from "./chainSequences";
import { ReportCard } from "./ReportCard";

// Chains listed one by one; a melt of hundreds says how many more there are.
const SHOWN_CHAINS = 10;

/** The sequence of every chain of a polymer whose random segments were drawn chain by chain, from
 * report.json; nothing when every chain of every polymer has the same sequence. */
export function ChainSequences({ report }: { report: { data?: string } }) {
  const { t } = useTranslation("systems");
  const polymers = report.data === undefined ? [] : drawnChains(report.data);
  if (!polymers.length) return null;
  return (
    <ReportCard title={t("detail.sequences")} note={t("detail.sequencesNote")}>
      <Stack gap="sm" data-testid="chain-sequences">
        {polymers.map((polymer) => (
          <Stack key={polymer.name} gap={2}>
            <Text fw={600} size="sm">
              {t("detail.sequencesOf", { name: polymer.name, count: polymer.sequences.length })}
            </Text>
            {polymer.sequences.slice(0, SHOWN_CHAINS).map((sequence, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a report's chains are a fixed list that never reorders
              <Text key={index} size="xs" ff="monospace">
                {t("detail.sequenceOfChain", { number: index + 1, sequence: sequence.join("-") })}
              </Text>
            ))}
            {polymer.sequences.length > SHOWN_CHAINS ? (
              <Text size="xs" c="dimmed">
                {t("detail.moreChains", { count: polymer.sequences.length - SHOWN_CHAINS })}
              </Text>
            ) : null}
          </Stack>
        ))}
      </Stack>
    </ReportCard>
  );
}
