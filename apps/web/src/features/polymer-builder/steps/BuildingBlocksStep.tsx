import { ActionIcon, Alert, Anchor, Badge, Button, Group, Loader, Stack, Text, Title, Tooltip } from "@mantine/core";
import type { BuildingBlock } from "@polyforge/contracts/building-blocks";
import { IconCheck, IconTrash } from "@tabler/icons-react";
import { useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import { queryKeys } from "../api/builderKeys";
import { fetchCatalogueBlocks } from "../api/getCatalogueBlocks";
import { useDraftBlocks } from "../api/getDraftBlocks";
import { setBlockDraftStatus } from "../api/setBlockDraftStatus";
import { SearchableList } from "../components/SearchableList";
import { StepLayout } from "../components/StepLayout";
import { delay } from "../ordering";

/** SPEC §9: an added block shows as loading for at least about a second before its check. */
export const MIN_ADD_DELAY_MS = 1000;

type AddState = "loading" | "confirmed";

type ShownBlock = { block: BuildingBlock; state?: AddState };

/**
 * The draft's blocks as shown: the stored ones (less those being removed) and those being added.
 * Adding is optimistic: the row appears loading at once and is confirmed (or taken back) when the
 * server answers; removing hides the row at once and puts it back in place on failure.
 */
function useDraftBlockEdits() {
  const { t } = useTranslation("polymerBuilder");
  const queryClient = useQueryClient();
  const draftBlocks = useDraftBlocks();
  const [adding, setAdding] = useState<Map<string, { block: BuildingBlock; state: AddState }>>(new Map());
  const [removing, setRemoving] = useState<Set<string>>(new Set());

  const stored = draftBlocks.data?.data ?? [];
  const storedIds = new Set(stored.map((b) => b.id));
  const shown: ShownBlock[] = [
    ...stored.filter((b) => !removing.has(b.id)).map((block) => ({ block, state: adding.get(block.id)?.state })),
    ...[...adding.values()].filter((a) => !storedIds.has(a.block.id)),
  ];

  const updateAdding = (id: string, entry: { block: BuildingBlock; state: AddState } | null) =>
    setAdding((current) => {
      const next = new Map(current);
      if (entry) next.set(id, entry);
      else next.delete(id);
      return next;
    });

  async function add(block: BuildingBlock) {
    updateAdding(block.id, { block, state: "loading" });
    try {
      await Promise.all([setBlockDraftStatus(block.id, true), delay(MIN_ADD_DELAY_MS)]);
      await queryClient.invalidateQueries({ queryKey: queryKeys.draftBlocks });
      updateAdding(block.id, { block, state: "confirmed" });
    } catch {
      updateAdding(block.id, null);
      toast.error(t("blocks.addFailed"));
    }
  }

  async function remove(block: BuildingBlock) {
    setRemoving((current) => new Set(current).add(block.id));
    try {
      await setBlockDraftStatus(block.id, false);
      updateAdding(block.id, null);
      await queryClient.invalidateQueries({ queryKey: queryKeys.draftBlocks });
    } catch {
      toast.error(t("blocks.removeFailed"));
    } finally {
      setRemoving((current) => {
        const next = new Set(current);
        next.delete(block.id);
        return next;
      });
    }
  }

  return { loadFailed: draftBlocks.isError, shown, add, remove };
}

/** Step 1: the catalogue to add from, and the draft's blocks with their counts per type. */
export function BuildingBlocksStep() {
  const { t } = useTranslation("polymerBuilder");
  const { loadFailed, shown, add, remove } = useDraftBlockEdits();
  const shownIds = new Set(shown.map((s) => s.block.id));
  return (
    <StepLayout
      main={<CatalogueBlocks shownIds={shownIds} onAdd={(block) => void add(block)} />}
      summaryTitle={t("blocks.summary")}
      summary={<AddedBlocks loadFailed={loadFailed} shown={shown} onRemove={(block) => void remove(block)} />}
    />
  );
}

function CatalogueBlocks({ shownIds, onAdd }: { shownIds: Set<string>; onAdd: (block: BuildingBlock) => void }) {
  const { t } = useTranslation("polymerBuilder");
  return (
    <>
      <Title order={3}>{t("blocks.heading")}</Title>
      <Text>{t("blocks.intro")}</Text>
      <Text c="dimmed" size="sm">
        {t("blocks.peptideNote")}
      </Text>
      <SearchableList<BuildingBlock>
        label={t("blocks.heading")}
        testId="catalogue-blocks"
        queryKey={queryKeys.catalogueBlocks}
        fetchPage={fetchCatalogueBlocks}
        errorText={t("blocks.loadFailed")}
        emptyState={
          <Alert color="yellow" title={t("blocks.noBlocks")}>
            <Anchor component={Link} to="/building-blocks">
              {t("blocks.createOne")}
            </Anchor>
          </Alert>
        }
        renderItem={(block) => (
          <>
            <Group gap="xs">
              <Text>{block.name}</Text>
              <Badge variant="light">{t(`blockTypes.${block.type}`)}</Badge>
            </Group>
            {shownIds.has(block.id) ? (
              <Text size="sm" c="dimmed">
                {t("blocks.alreadyAdded")}
              </Text>
            ) : (
              <Button
                size="xs"
                variant="light"
                onClick={() => onAdd(block)}
                aria-label={`${t("common.add")} ${block.name}`}
              >
                {t("common.add")}
              </Button>
            )}
          </>
        )}
      />
    </>
  );
}

type AddedBlocksProps = { loadFailed: boolean; shown: ShownBlock[]; onRemove: (block: BuildingBlock) => void };

function AddedBlocks({ loadFailed, shown, onRemove }: AddedBlocksProps) {
  const { t } = useTranslation("polymerBuilder");
  const counts = { linear: 0, dendrimer: 0 };
  for (const { block } of shown) if (block.type === "linear" || block.type === "dendrimer") counts[block.type]++;
  return (
    <>
      {loadFailed && <Text c="red">{t("blocks.draftLoadFailed")}</Text>}
      <Text size="sm">{t("blocks.groupCount", { type: t("blockTypes.linear"), count: counts.linear })}</Text>
      <Text size="sm">{t("blocks.groupCount", { type: t("blockTypes.dendrimer"), count: counts.dendrimer })}</Text>
      {shown.length === 0 && <Text c="dimmed">{t("blocks.none")}</Text>}
      <Stack gap={4} data-testid="added-blocks">
        {shown.map(({ block, state }) => (
          <Group key={block.id} justify="space-between" wrap="nowrap">
            <Group gap="xs" wrap="nowrap">
              {state === "loading" ? (
                <Loader size="xs" aria-label={t("common.adding")} />
              ) : (
                <IconCheck size={16} color="var(--mantine-color-teal-6)" aria-label={t("common.added")} />
              )}
              <Text size="sm">{block.name}</Text>
            </Group>
            <Tooltip label={t("common.remove")}>
              <ActionIcon
                variant="subtle"
                color="red"
                disabled={state === "loading"}
                onClick={() => onRemove(block)}
                aria-label={`${t("common.remove")} ${block.name}`}
              >
                <IconTrash size={16} />
              </ActionIcon>
            </Tooltip>
          </Group>
        ))}
      </Stack>
    </>
  );
}
