import { ActionIcon, Group, Stack, Text, TextInput } from "@mantine/core";
import { INPUT_PATTERNS } from "@polyforge/contracts/polymer-builder";
import { IconArrowDown, IconArrowUp, IconTrash } from "@tabler/icons-react";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";

export interface OrderedItem {
  /** Stable React key: the same block can appear twice in a segment. */
  key: string;
  id: string;
  name: string;
  /** The number typed for it (occurrence or ratio), digits only. */
  value: string;
}

interface OrderedItemsProps {
  items: OrderedItem[];
  valueLabel: string;
  /** Field errors by "<index>" for the value inputs. */
  errors: Record<string, string | undefined>;
  onValueChange: (index: number, value: string) => void;
  onMove?: (index: number, delta: -1 | 1) => void;
  onRemove: (index: number) => void;
  /** Extra text after the value (e.g. the ratio's percentage). */
  extra?: (index: number) => ReactNode;
  emptyText: string;
}

/** The items of a segment or polymer in order, each with a digits-only number, movable and removable. */
export function OrderedItems(props: OrderedItemsProps) {
  const { t } = useTranslation("polymerBuilder");
  if (props.items.length === 0) return <Text c="dimmed">{props.emptyText}</Text>;
  return (
    <Stack gap="xs">
      {props.items.map((item, index) => (
        <Group key={item.key} wrap="nowrap" align="flex-start">
          {/* The whole name, wrapped if long: a cut name cannot tell two polymers apart. */}
          <Text miw={180} maw={420} pt={6} style={{ overflowWrap: "anywhere" }}>
            {index + 1}. {item.name}
          </Text>
          <TextInput
            w={120}
            aria-label={`${props.valueLabel} ${item.name}`}
            placeholder={props.valueLabel}
            value={item.value}
            error={props.errors[String(index)]}
            inputMode="numeric"
            onChange={(event) => {
              const value = event.currentTarget.value;
              if (INPUT_PATTERNS.digits.test(value)) props.onValueChange(index, value);
            }}
          />
          {props.extra && <Text pt={6}>{props.extra(index)}</Text>}
          {props.onMove && (
            <>
              <ActionIcon
                variant="subtle"
                mt={4}
                aria-label={`${t("common.moveUp")} ${item.name}`}
                disabled={index === 0}
                onClick={() => props.onMove?.(index, -1)}
              >
                <IconArrowUp size={16} />
              </ActionIcon>
              <ActionIcon
                variant="subtle"
                mt={4}
                aria-label={`${t("common.moveDown")} ${item.name}`}
                disabled={index === props.items.length - 1}
                onClick={() => props.onMove?.(index, 1)}
              >
                <IconArrowDown size={16} />
              </ActionIcon>
            </>
          )}
          <ActionIcon
            variant="subtle"
            color="red"
            mt={4}
            aria-label={`${t("common.remove")} ${item.name}`}
            onClick={() => props.onRemove(index)}
          >
            <IconTrash size={16} />
          </ActionIcon>
        </Group>
      ))}
    </Stack>
  );
}

export function newItem(id: string, name: string, value: string): OrderedItem {
  return { key: crypto.randomUUID(), id, name, value };
}

/** Errors of `<listKey>.<index>.<field>` re-keyed by index, for OrderedItems. */
export function itemErrors(errors: Record<string, string>, listKey: string, field: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, message] of Object.entries(errors)) {
    const match = new RegExp(`^${listKey}\\.(\\d+)\\.${field}$`).exec(key);
    if (match) out[match[1]!] = message;
  }
  return out;
}

/** A form's list whose items OrderedItems shows: each row has its own key, an id, a name and a
 * typed number under `valueField` (the names the list's zod schema uses). */
type ListRow = { key: string; name: string } & Record<string, unknown>;
interface ListForm {
  getValues(): unknown;
  errors: Record<string, ReactNode>;
  setFieldValue(path: string, value: string): void;
  insertListItem(path: string, item: unknown): void;
  removeListItem(path: string, index: number): void;
  reorderListItem(path: string, payload: { from: number; to: number }): void;
}

/** OrderedItems' props for a @mantine/form list at `path` (e.g. "blocks"), its rows holding the
 * item's id under `idField` and the typed number under `valueField`; plus `add` for a new row. */
export function formListItems(
  form: ListForm,
  rows: ReadonlyArray<ListRow>,
  path: string,
  idField: string,
  valueField: string,
) {
  const items: OrderedItem[] = rows.map((row) => ({
    key: row.key,
    id: String(row[idField]),
    name: row.name,
    value: String(row[valueField] ?? ""),
  }));
  return {
    items,
    errors: itemErrors(form.errors as Record<string, string>, path, valueField),
    onValueChange: (index: number, value: string) => form.setFieldValue(`${path}.${index}.${valueField}`, value),
    onMove: (index: number, delta: -1 | 1) => {
      const to = index + delta;
      if (to >= 0 && to < rows.length) form.reorderListItem(path, { from: index, to });
    },
    onRemove: (index: number) => form.removeListItem(path, index),
    add: (id: string, name: string, value: string) =>
      form.insertListItem(path, { key: crypto.randomUUID(), name, [idField]: id, [valueField]: value }),
  };
}
