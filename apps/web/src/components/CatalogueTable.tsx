import { Group, Pagination, Table, Text, TextInput } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { IconSearch } from "@tabler/icons-react";
import type { UseQueryResult } from "@tanstack/react-query";
import { type ReactNode, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";

/** Rows per page in the catalogues (SPEC §9: page 1, size 10). */
export const CATALOGUE_PAGE_SIZE = 10;

/** How long the name search waits after the last keystroke. */
export const SEARCH_DEBOUNCE_MS = 300;

/** A catalogue's page and name search: the name as typed, and as the list asks for it (trimmed,
 * SEARCH_DEBOUNCE_MS after the last keystroke; undefined when empty). Typing starts again on page 1;
 * `reset` (another filter) clears the name too. */
export function useCatalogueSearch() {
  const [nameSearch, setNameSearch] = useState("");
  const [debouncedName] = useDebouncedValue(nameSearch.trim(), SEARCH_DEBOUNCE_MS);
  const [page, setPage] = useState(1);
  return {
    page,
    setPage,
    nameSearch,
    name: debouncedName || undefined,
    changeName(value: string) {
      setNameSearch(value);
      setPage(1);
    },
    reset() {
      setPage(1);
      setNameSearch("");
    },
  };
}

function pageCountFor(total: number): number {
  return Math.max(1, Math.ceil(total / CATALOGUE_PAGE_SIZE));
}

/** When the last row of the last page goes (archive, recover), show the page that now is last. */
export function useKeepPageInRange(
  list: UseQueryResult<{ data: unknown[]; metadata: { num_records: number } }>,
  page: number,
  setPage: (page: number) => void,
): void {
  const pageCount = pageCountFor(list.data?.metadata.num_records ?? 0);
  useEffect(() => {
    if (list.data && !list.isPlaceholderData && list.data.data.length === 0 && page > pageCount) {
      setPage(pageCount);
    }
  }, [list.data, list.isPlaceholderData, page, pageCount, setPage]);
}

/** A catalogue's list query as its table reads it: loading, failed, or a page of items. */
export interface CatalogueList<Item> {
  isPending: boolean;
  isError: boolean;
  data?: { data: Item[] };
}

/** The table every catalogue shows: a wide first column, a message row while the list loads, when
 * it failed or when it is empty, otherwise a row (`row`) for each of its items. */
export function CatalogueTable<Item>({
  columns,
  otherColumnWidth,
  list,
  emptyText,
  failedText,
  striped = false,
  row,
}: {
  columns: string[];
  otherColumnWidth: string;
  list: CatalogueList<Item>;
  emptyText: string;
  failedText: string;
  striped?: boolean;
  row: (item: Item) => ReactNode;
}) {
  const { t } = useTranslation();
  const items = list.data?.data ?? [];
  let message: string | null = null;
  if (list.isError) message = failedText;
  else if (list.isPending) message = t("loading");
  else if (items.length === 0) message = emptyText;

  return (
    <Table striped={striped} highlightOnHover verticalSpacing="sm">
      <Table.Thead>
        <Table.Tr>
          {columns.map((column, index) => (
            <Table.Th key={column} w={index === 0 ? "40%" : otherColumnWidth}>
              {column}
            </Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {message ? (
          <Table.Tr>
            <Table.Td colSpan={columns.length}>
              <Text c={list.isError ? "red" : "dimmed"} ta="center">
                {message}
              </Text>
            </Table.Td>
          </Table.Tr>
        ) : (
          items.map(row)
        )}
      </Table.Tbody>
    </Table>
  );
}

/** SPEC §2's pagination line: the range ('1 - 10', '0 - 0' when empty), the total, the pager and
 * 'N of M pages'. */
export function CataloguePagination({
  page,
  total,
  onPageChange,
}: {
  page: number;
  total: number;
  onPageChange: (page: number) => void;
}) {
  const { t } = useTranslation();
  const pageSize = CATALOGUE_PAGE_SIZE;
  const pageCount = pageCountFor(total);
  return (
    <Group justify="space-between">
      <Group gap="md">
        <Text size="sm" c="dimmed">
          {t("pagination.range", {
            start: total === 0 ? 0 : (page - 1) * pageSize + 1,
            end: Math.min(page * pageSize, total),
          })}
        </Text>
        <Text size="sm" c="dimmed">
          {t("pagination.total", { total })}
        </Text>
      </Group>
      <Pagination total={pageCount} value={page} onChange={onPageChange} size="sm" />
      <Text size="sm" c="dimmed">
        {t("pagination.pages", { page: Math.min(page, pageCount), count: pageCount })}
      </Text>
    </Group>
  );
}

/** The catalogue's search by name; `label` is both placeholder and accessible name. */
export function CatalogueNameSearch({
  label,
  value,
  onChange,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <TextInput
      w={320}
      placeholder={label}
      aria-label={label}
      leftSection={<IconSearch size={16} />}
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
    />
  );
}
