import { Group, Pagination, Stack, Text, TextInput } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import type { ListResponse } from "@polyforge/contracts/pagination";
import { IconSearch } from "@tabler/icons-react";
import { keepPreviousData, type QueryKey, useQuery } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { useTranslation } from "react-i18next";
import { SEARCH_DEBOUNCE_MS } from "../../../components/CatalogueTable";
import { PAGE_SIZES } from "../api/builderKeys";

interface SearchableListProps<T> {
  label: string;
  queryKey: (name: string, page: number) => QueryKey;
  fetchPage: (name: string, page: number) => Promise<ListResponse<T>>;
  renderItem: (item: T) => ReactNode;
  errorText: string;
  /** Shown instead of the list when nothing exists at all (no search typed). */
  emptyState?: ReactNode;
  testId?: string;
}

/** A name-searchable (debounced), paginated list with one row per item. */
export function SearchableList<T extends { id: string }>(props: SearchableListProps<T>) {
  const { t } = useTranslation("polymerBuilder");
  const [search, setSearch] = useState("");
  const [debounced] = useDebouncedValue(search.trim(), SEARCH_DEBOUNCE_MS);
  const [page, setPage] = useState(1);
  const query = useQuery({
    queryKey: props.queryKey(debounced, page),
    queryFn: () => props.fetchPage(debounced, page),
    placeholderData: keepPreviousData,
  });
  const total = query.data?.metadata.num_records ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZES.list));

  if (query.isSuccess && total === 0 && !debounced && props.emptyState) return <>{props.emptyState}</>;
  return (
    <Stack gap="xs" data-testid={props.testId}>
      <Text fw={600}>{props.label}</Text>
      <TextInput
        aria-label={props.label}
        placeholder={t("common.searchByName")}
        leftSection={<IconSearch size={16} />}
        value={search}
        onChange={(event) => {
          setSearch(event.currentTarget.value);
          setPage(1);
        }}
      />
      {query.isError && <Text c="red">{props.errorText}</Text>}
      {query.isSuccess && total === 0 && <Text c="dimmed">{t("common.noResults")}</Text>}
      {query.data?.data.map((item) => (
        <Group key={item.id} justify="space-between" wrap="nowrap">
          {props.renderItem(item)}
        </Group>
      ))}
      {pages > 1 && <Pagination size="sm" total={pages} value={page} onChange={setPage} />}
    </Stack>
  );
}
