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

/** The table every catalogue shows: a wide first column, a message row while loading, on failure or
 * when empty, otherwise the caller's rows. */
export function CatalogueTable({
  columns,
  otherColumnWidth,
  loading,
  failed,
  empty,
  emptyText,
  failedText,
  striped = false,
  children,
}: {
  columns: string[];
  otherColumnWidth: string;
  loading: boolean;
  failed: boolean;
  empty: boolean;
  emptyText: string;
  failedText: string;
  striped?: boolean;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  let message: string | null = null;
  if (failed) message = failedText;
  else if (loading) message = t("loading");
  else if (empty) message = emptyText;

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
              <Text c={failed ? "red" : "dimmed"} ta="center">
                {message}
              </Text>
            </Table.Td>
          </Table.Tr>
        ) : (
          children
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
