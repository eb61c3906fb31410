import { useFeatureIsOn } from "@growthbook/growthbook-react";
import { ActionIcon, Button, Group, Menu, SegmentedControl, Stack, Table, Title, Tooltip } from "@mantine/core";
import type { BuildingBlock } from "@polyforge/contracts/building-blocks";
import { type BlockType, CREATABLE_BLOCK_TYPES } from "@polyforge/contracts/enums";
import { FLAGS } from "@polyforge/contracts/flags";
import { IconArchive, IconChevronDown, IconRestore } from "@tabler/icons-react";
import { Link } from "@tanstack/react-router";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import {
  CATALOGUE_PAGE_SIZE,
  type CatalogueList,
  CatalogueNameSearch,
  CataloguePagination,
  CatalogueTable,
  useCatalogueSearch,
  useKeepPageInRange,
} from "../../components/CatalogueTable";
import { formatDate } from "../../lib/formatting/date";
import { useArchiveBlock } from "./api/archiveBlock";
import { type BlockListParams, useBlocks } from "./api/getBlocks";
import { useRecoverBlock } from "./api/recoverBlock";
import { BlockDetailLink } from "./BlockDetailLink";
import { BlockTypeBadge } from "./BlockTypeBadge";

export type CatalogueFilter = "active" | "archived" | "aminoacids";

export interface CatalogueSearch {
  archived: boolean;
  type: BlockType[];
}

/** The search params of each filter button. */
const FILTER_SEARCH: Record<CatalogueFilter, CatalogueSearch> = {
  active: { archived: false, type: [...CREATABLE_BLOCK_TYPES] },
  archived: { archived: true, type: [...CREATABLE_BLOCK_TYPES] },
  aminoacids: { archived: false, type: ["aminoacid"] },
};

/** Which filter the search params select; aminoacids only while peptide-builder is on. */
function selectedFilter(search: CatalogueSearch, aminoacidsAllowed: boolean): CatalogueFilter {
  const onlyAminoacids = search.type.length === 1 && search.type[0] === "aminoacid";
  if (onlyAminoacids && aminoacidsAllowed) return "aminoacids";
  return search.archived ? "archived" : "active";
}

/** The block types a filter lists: aminoacids alone, or the user's own types the search asks for. */
function listedTypes(filter: CatalogueFilter, search: CatalogueSearch): BlockType[] {
  if (filter === "aminoacids") return ["aminoacid"];
  const own = search.type.filter((type) => type !== "aminoacid");
  return own.length ? own : [...CREATABLE_BLOCK_TYPES];
}

export interface BuildingBlocksCatalogueProps {
  search: CatalogueSearch;
  onSearchChange: (search: CatalogueSearch) => void;
}

/** /building-blocks (SPEC §2): filters, name search, Create block menu, table and pagination. */
export function BuildingBlocksCatalogue({ search, onSearchChange }: BuildingBlocksCatalogueProps) {
  const { t } = useTranslation("buildingBlocks");
  const aminoacidsAllowed = useFeatureIsOn(FLAGS.PEPTIDE_BUILDER);
  const filter = selectedFilter(search, aminoacidsAllowed);
  const { page, setPage, nameSearch, name, changeName, reset } = useCatalogueSearch();

  const params: BlockListParams = {
    page_num: page,
    page_size: CATALOGUE_PAGE_SIZE,
    type: listedTypes(filter, search),
    name,
    show_archived: filter === "archived",
  };
  const blocks = useBlocks(params);
  const total = blocks.data?.metadata.num_records ?? 0;
  useKeepPageInRange(blocks, page, setPage);

  function changeFilter(next: CatalogueFilter) {
    reset();
    onSearchChange(FILTER_SEARCH[next]);
  }

  const filterOptions = [
    { value: "active", label: t("filters.active") },
    { value: "archived", label: t("filters.archived") },
    ...(aminoacidsAllowed ? [{ value: "aminoacids", label: t("filters.aminoacids") }] : []),
  ];

  return (
    <Stack gap="lg">
      <CatalogueHeader />
      <Group justify="space-between">
        <SegmentedControl
          value={filter}
          data={filterOptions}
          onChange={(value) => changeFilter(value as CatalogueFilter)}
          aria-label={t("filters.label")}
        />
        <CatalogueNameSearch label={t("catalogue.searchPlaceholder")} value={nameSearch} onChange={changeName} />
      </Group>
      <BlocksTable filter={filter} blocks={blocks} />
      <CataloguePagination page={page} total={total} onPageChange={setPage} />
    </Stack>
  );
}

/** The title and the Create block menu (linear or dendrimer). Create block sits beside the title,
 * not at the top right where toasts appear (SPEC §2) and would cover it. */
function CatalogueHeader() {
  const { t } = useTranslation("buildingBlocks");
  return (
    <Group gap="lg">
      <Title order={2}>{t("catalogue.title")}</Title>
      <Menu position="bottom-start">
        <Menu.Target>
          <Button rightSection={<IconChevronDown size={16} />}>{t("catalogue.createBlock")}</Button>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Item component={Link} to="/building-blocks/create/linear">
            {t("types.linear")}
          </Menu.Item>
          <Menu.Item component={Link} to="/building-blocks/create/dendrimer">
            {t("types.dendrimer")}
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
    </Group>
  );
}

function BlocksTable({ filter, blocks }: { filter: CatalogueFilter; blocks: CatalogueList<BuildingBlock> }) {
  const { t } = useTranslation("buildingBlocks");
  const aminoacids = filter === "aminoacids";
  const columns = aminoacids
    ? [t("columns.name"), t("columns.type"), t("columns.threeLetterCode"), t("columns.oneLetterCode")]
    : [t("columns.name"), t("columns.type"), t("columns.lastModified"), t("columns.actions")];

  return (
    <CatalogueTable
      columns={columns}
      otherColumnWidth="20%"
      list={blocks}
      emptyText={t("catalogue.empty")}
      failedText={t("catalogue.loadFailed")}
      striped
      row={(block) => (
        <Table.Tr key={block.id}>
          <Table.Td>
            <BlockDetailLink block={block} />
          </Table.Td>
          <Table.Td>
            <BlockTypeBadge type={block.type} />
          </Table.Td>
          {aminoacids ? (
            <>
              <Table.Td>{block.data.three_letter_code}</Table.Td>
              <Table.Td>{block.data.one_letter_code}</Table.Td>
            </>
          ) : (
            <>
              <Table.Td>{formatDate(block.updated_at)}</Table.Td>
              <Table.Td>
                <ArchiveAction block={block} />
              </Table.Td>
            </>
          )}
        </Table.Tr>
      )}
    />
  );
}

/** Archive for an active block, recover for an archived one; the lists refresh afterwards. */
function ArchiveAction({ block }: { block: BuildingBlock }) {
  const { t } = useTranslation("buildingBlocks");
  const recovering = block.archived;
  const archive = useArchiveBlock(block.id, {
    onSuccess: () => {
      toast.success(t("actions.archived"));
    },
    onError: () => toast.error(t("actions.archiveFailed")),
  });
  const recover = useRecoverBlock(block.id, {
    onSuccess: () => {
      toast.success(t("actions.recovered"));
    },
    onError: () => toast.error(t("actions.recoverFailed")),
  });
  const action = recovering ? recover : archive;
  const label = t(recovering ? "actions.recover" : "actions.archive", { name: block.name });
  return (
    <Tooltip label={label}>
      <ActionIcon variant="subtle" aria-label={label} loading={action.isPending} onClick={() => action.mutate()}>
        {recovering ? <IconRestore size={18} /> : <IconArchive size={18} />}
      </ActionIcon>
    </Tooltip>
  );
}
