import { Anchor, Badge, Card, Group, Loader, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import type { BuildingBlock } from "@polyforge/contracts/building-blocks";
import { Link, useNavigate } from "@tanstack/react-router";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import { ProductError } from "../../lib/api/productError";
import { useRDKit } from "../../lib/chemistry/useRDKit";
import { formatDate } from "../../lib/formatting/date";
import { useBlock } from "./api/getBlock";
import { useUpdateBlock } from "./api/updateBlock";
import { BlockForm, type BlockFormValues } from "./BlockForm";
import { BlockTypeBadge } from "./BlockTypeBadge";
import { StructureDrawing } from "./StructureDrawing";

/** /building-blocks/$blockId: dates, type and the edit form; a load error goes back to the catalogue. */
export function BlockDetailPage({ blockId }: { blockId: string }) {
  const { t } = useTranslation("buildingBlocks");
  const navigate = useNavigate();
  const block = useBlock(blockId);

  useEffect(() => {
    if (!block.isError) return;
    toast.error(t("detail.loadFailed"));
    void navigate({ to: "/building-blocks", replace: true });
  }, [block.isError, navigate, t]);

  return (
    <Stack gap="lg" maw={900}>
      <Anchor component={Link} to="/building-blocks" size="sm">
        {t("backToCatalogue")}
      </Anchor>
      {block.data ? (
        <BlockDetail block={block.data} />
      ) : (
        <>
          <Title order={2}>{t("detail.title")}</Title>
          {block.isPending ? <Loader aria-label={t("loading")} /> : null}
        </>
      )}
    </Stack>
  );
}

function BlockDetail({ block }: { block: BuildingBlock }) {
  const { t } = useTranslation("buildingBlocks");
  return (
    <>
      <Stack gap="xs">
        <Group gap="sm">
          <Title order={2}>{block.name}</Title>
          <BlockTypeBadge type={block.type} />
          {block.archived ? (
            <Badge color="gray" variant="outline">
              {t("detail.archived")}
            </Badge>
          ) : null}
        </Group>
        <Group gap="xl">
          <Text size="sm" c="dimmed">
            {t("detail.lastModified", { date: formatDate(block.updated_at) })}
          </Text>
          <Text size="sm" c="dimmed">
            {t("detail.created", { date: formatDate(block.created_at) })}
          </Text>
        </Group>
        {block.description ? <Text>{block.description}</Text> : null}
      </Stack>
      {block.type === "aminoacid" ? <AminoacidDetail block={block} /> : <EditBlock block={block} />}
    </>
  );
}

function EditBlock({ block }: { block: BuildingBlock }) {
  const { t } = useTranslation("buildingBlocks");
  const save = useUpdateBlock(block.id, {
    onSuccess: () => {
      toast.success(t("detail.updated"));
    },
    // The server's reason (e.g. a segment uses the block: IN_USE) under the spec's title; the form
    // keeps the user's edit.
    onError: (error) => {
      const reason = error instanceof ProductError && error.status !== null ? error.message : null;
      toast.error(t("detail.updateFailed"), reason ? { description: reason } : {});
    },
  });
  if (block.type === "aminoacid") return null;
  return (
    <Card withBorder radius="md" padding="lg">
      <BlockForm
        key={block.updated_at}
        type={block.type}
        initialValues={{ name: block.name, description: block.description ?? "", data: block.data }}
        submitLabel={t("detail.save")}
        submitting={save.isPending}
        onSubmit={({ name, description, data }: BlockFormValues) =>
          save.mutateAsync({ name, description: description || null, data })
        }
      />
    </Card>
  );
}

/** Aminoacids are global and read-only: their codes and residue drawing. */
function AminoacidDetail({ block }: { block: BuildingBlock }) {
  const { t } = useTranslation("buildingBlocks");
  const rdkit = useRDKit();
  return (
    <Card withBorder radius="md" padding="lg">
      <Group align="flex-start" gap="xl">
        <SimpleGrid cols={2} spacing="xs" verticalSpacing="xs">
          <Text fw={500}>{t("columns.threeLetterCode")}</Text>
          <Text>{block.data.three_letter_code}</Text>
          <Text fw={500}>{t("columns.oneLetterCode")}</Text>
          <Text>{block.data.one_letter_code}</Text>
          <Text fw={500}>{t("fields.repeating_unit")}</Text>
          <Text ff="monospace">{block.data.repeating_unit}</Text>
        </SimpleGrid>
        <StructureDrawing rdkit={rdkit.data} smiles={block.data.repeating_unit ?? ""} />
      </Group>
    </Card>
  );
}
