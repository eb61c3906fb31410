import { useFeatureIsOn } from "@growthbook/growthbook-react";
import { Accordion, ActionIcon, Group, Stack, Text, Title } from "@mantine/core";
import { SEGMENT_TYPES, type SegmentType } from "@polyforge/contracts/enums";
import { FLAGS } from "@polyforge/contracts/flags";
import type { SegmentResponse } from "@polyforge/contracts/segments";
import { IconTrash } from "@tabler/icons-react";
import { useTranslation } from "react-i18next";
import { queryKeys } from "../api/builderKeys";
import { deleteSegment } from "../api/deleteSegment";
import { useDraftSegments } from "../api/getDraftSegments";
import { StepLayout } from "../components/StepLayout";
import { useOptimisticDelete } from "../useOptimisticDelete";
import { LinearBlockSegmentForm, LinearPeptideSegmentForm, LinearRandomSegmentForm } from "./SegmentForms";

/** Step 2: one accordion per segment type (dendrimers disabled, peptide behind its flag). */
export function SegmentsStep() {
  const { t } = useTranslation("polymerBuilder");
  return <StepLayout main={<SegmentForms />} summaryTitle={t("segments.summary")} summary={<AddedSegments />} />;
}

function SegmentForms() {
  const { t } = useTranslation("polymerBuilder");
  const peptideBuilder = useFeatureIsOn(FLAGS.PEPTIDE_BUILDER);
  return (
    <>
      <Title order={3}>{t("segments.heading")}</Title>
      <Accordion variant="separated" defaultValue="linear_block">
        <Accordion.Item value="linear_block">
          <Accordion.Control>{t("segments.linearBlock")}</Accordion.Control>
          <Accordion.Panel>
            <LinearBlockSegmentForm />
          </Accordion.Panel>
        </Accordion.Item>
        <Accordion.Item value="linear_random">
          <Accordion.Control>{t("segments.linearRandom")}</Accordion.Control>
          <Accordion.Panel>
            <LinearRandomSegmentForm />
          </Accordion.Panel>
        </Accordion.Item>
        {peptideBuilder && (
          <Accordion.Item value="linear_peptide">
            <Accordion.Control>{t("segments.linearPeptide")}</Accordion.Control>
            <Accordion.Panel>
              <LinearPeptideSegmentForm />
            </Accordion.Panel>
          </Accordion.Item>
        )}
        {(["dendrimerCentral", "dendrimerRepeating"] as const).map((key) => (
          <Accordion.Item value={key} key={key}>
            <Accordion.Control disabled>
              {t(`segments.${key}`)} — {t("segments.unavailable")}
            </Accordion.Control>
          </Accordion.Item>
        ))}
      </Accordion>
    </>
  );
}

/** The draft's segments grouped by type, each with its block count and a remove button. */
function AddedSegments() {
  const { t } = useTranslation("polymerBuilder");
  const segments = useDraftSegments();
  const remove = useOptimisticDelete<SegmentResponse>(queryKeys.draftSegments, deleteSegment, {
    deleted: t("segments.deleted"),
    failed: t("segments.deleteFailed"),
  });
  const list = segments.data?.data ?? [];
  return (
    <Stack gap="xs" data-testid="added-segments">
      {segments.isError && <Text c="red">{t("segments.loadFailed")}</Text>}
      {list.length === 0 && <Text c="dimmed">{t("segments.none")}</Text>}
      {SEGMENT_TYPES.map((type: SegmentType) => {
        const ofType = list.filter((s) => s.type === type);
        if (ofType.length === 0) return null;
        return (
          <Stack gap={2} key={type}>
            <Text fw={600} size="sm">
              {t("segments.groupCount", { type: t(`segments.types.${type}`), count: ofType.length })}
            </Text>
            {ofType.map((segment) => (
              <Group key={segment.id} justify="space-between" wrap="nowrap">
                <Text size="sm">
                  {segment.name} ({String(segment.data.total_building_blocks)})
                </Text>
                <ActionIcon
                  variant="subtle"
                  color="red"
                  aria-label={`${t("common.remove")} ${segment.name}`}
                  onClick={() => remove.mutate(segment.id)}
                >
                  <IconTrash size={16} />
                </ActionIcon>
              </Group>
            ))}
          </Stack>
        );
      })}
    </Stack>
  );
}
