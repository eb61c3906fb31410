import { Button, Group, Radio, SegmentedControl, Stack, Switch, Text, TextInput, Title } from "@mantine/core";
import { DEFAULT_JOB_LIMITS } from "@polyforge/contracts/job-limits";
import {
  densityFromText,
  INPUT_PATTERNS,
  type SystemSetupResponse,
  systemSetupForm,
} from "@polyforge/contracts/polymer-builder";
import type { PolymerResponse } from "@polyforge/contracts/polymers";
import { DEFAULT_OCCURRENCE, parseWholeNumber } from "@polyforge/contracts/segments";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import { itemErrors, newItem, type OrderedItem, OrderedItems } from "../components/OrderedItems";
import { SearchableList } from "../components/SearchableList";
import { StepLayout } from "../components/StepLayout";
import { errorsOf, moveItem, useRevalidatedErrors } from "../ordering";
import { fetchDraftPolymers, PAGE_SIZES, queryKeys, saveSetup } from "../polymerBuilderApi";
import type { CellDimensionSelector, ConstructionOrder } from "../setupTypes";
import { type PolymerComposition, useDraftComposition } from "../useComposition";
import { useDraftPolymers, useSetup } from "../useDraftProgress";

const AXES = ["X", "Y", "Z"] as const;
const formatCount = (value: number) => value.toLocaleString("en-US");

/** The system's atoms as the server counts them against its ceiling (hydrogens not counted), from
 * the chains typed so far; undefined while a polymer's building blocks are still loading. */
function estimatedSystemAtoms(items: OrderedItem[], compositions: Map<string, PolymerComposition>) {
  let total = 0;
  for (const item of items) {
    const composition = compositions.get(item.id);
    if (!composition) return undefined;
    total += parseWholeNumber(item.value) * composition.estimatedHeavyAtoms;
  }
  return total;
}

/** Step 4: cell (density or sides), hard walls, construction order and the polymers with copies. */
export function SystemSetupStep() {
  const { t } = useTranslation("polymerBuilder");
  const setup = useSetup();
  if (setup.isError) return <Text c="red">{t("setup.loadFailed")}</Text>;
  if (!setup.data) return null;
  return (
    <StepLayout
      main={<SetupForm setup={setup.data} />}
      summaryTitle={t("setup.summary")}
      summary={<SetupSummary setup={setup.data} />}
    />
  );
}

function SetupForm({ setup }: { setup: SystemSetupResponse }) {
  const { t } = useTranslation("polymerBuilder");
  const queryClient = useQueryClient();
  const [selector, setSelector] = useState<CellDimensionSelector>(setup.cell_dimension_selector);
  const [density, setDensity] = useState(String(setup.density ?? ""));
  const [sides, setSides] = useState<[string, string, string]>(
    (setup.cell_sides ?? [100, 100, 100]).map(String) as [string, string, string],
  );
  const [walls, setWalls] = useState(setup.potential_wall_z);
  const [order, setOrder] = useState<ConstructionOrder>(setup.construction_order);
  const [items, setItems] = useState<OrderedItem[]>(
    setup.polymers.map((p) => newItem(p.polymer_id, p.name, String(p.occurrence))),
  );
  const parse = () =>
    systemSetupForm.safeParse({
      cell_dimension_selector: selector,
      density,
      cell_sides: sides,
      potential_wall_z: walls,
      construction_order: order,
      polymers: items.map((i) => ({ polymer_id: i.id, occurrence: i.value })),
    });
  // Checked at submit, then on every change: a message (e.g. a side out of bounds) goes once it is right.
  const [errors, setErrors] = useRevalidatedErrors(() => errorsOf(parse()), [selector, density, sides, items]);
  // A polymer deleted in step 3 (or another tab) leaves the list being edited.
  const draftPolymers = useDraftPolymers();
  useEffect(() => {
    if (!draftPolymers.data) return;
    const existing = new Set(draftPolymers.data.data.map((p) => p.id));
    setItems((list) => (list.every((i) => existing.has(i.id)) ? list : list.filter((i) => existing.has(i.id))));
  }, [draftPolymers.data]);
  // The atom ceiling at the chains field: the count follows every keystroke, before any submit.
  const compositions = useDraftComposition().byPolymer;
  const systemAtoms = estimatedSystemAtoms(items, compositions);
  const tooManyAtoms = systemAtoms !== undefined && systemAtoms > DEFAULT_JOB_LIMITS.maxAtoms;
  const save = useMutation({
    mutationFn: (body: Parameters<typeof saveSetup>[1]) => saveSetup(setup.id, body),
    onSuccess: (saved) => {
      queryClient.setQueryData(queryKeys.setup, saved);
      toast.success(t("setup.saved"));
    },
    onError: (error) => toast.error(t("setup.saveFailed"), { description: error.message }),
  });

  function submit() {
    const parsed = parse();
    setErrors(errorsOf(parsed));
    if (!parsed.success || tooManyAtoms) return;
    save.mutate({
      cell_dimension_selector: selector,
      density: selector === "density" ? densityFromText(density) : null,
      cell_sides: selector === "cell_sides" ? sides.map(Number) : null,
      potential_wall_z: walls,
      construction_order: order,
      polymers: items.map((i, index) => ({
        polymer_id: i.id,
        order: index + 1,
        occurrence: parseWholeNumber(i.value),
      })),
    });
  }

  const decimalSetter = (set: (v: string) => void) => (event: React.ChangeEvent<HTMLInputElement>) => {
    if (INPUT_PATTERNS.decimal.test(event.currentTarget.value)) set(event.currentTarget.value);
  };

  return (
    <>
      <Title order={3}>{t("setup.heading")}</Title>
      <Stack gap={4}>
        <Text size="sm" fw={500}>
          {t("setup.cellDimensions")}
        </Text>
        <SegmentedControl
          w="fit-content"
          value={selector}
          onChange={(v) => setSelector(v as CellDimensionSelector)}
          data={[
            { value: "density", label: t("setup.density") },
            { value: "cell_sides", label: t("setup.cellSides") },
          ]}
        />
      </Stack>
      {selector === "density" ? (
        <TextInput
          w={200}
          label={t("setup.densityLabel")}
          value={density}
          error={errors.density}
          onChange={decimalSetter(setDensity)}
        />
      ) : (
        <Group>
          {AXES.map((axis, index) => (
            <TextInput
              key={axis}
              w={120}
              label={t("setup.sideLabel", { axis })}
              value={sides[index]}
              error={errors[`cell_sides.${index}`]}
              onChange={decimalSetter((v) => setSides((s) => s.map((side, i) => (i === index ? v : side)) as typeof s))}
            />
          ))}
        </Group>
      )}
      <Switch
        label={t("setup.hardWalls")}
        description={t("setup.hardWallsHelp")}
        checked={walls}
        onChange={(e) => setWalls(e.currentTarget.checked)}
      />
      <Radio.Group
        label={t("setup.constructionOrder")}
        value={order}
        onChange={(v) => setOrder(v as ConstructionOrder)}
      >
        <Group mt={4}>
          <Radio value="as_listed_in_components" label={t("setup.asListed")} />
          <Radio value="random" label={t("setup.random")} />
        </Group>
      </Radio.Group>
      <SearchableList<PolymerResponse>
        label={t("setup.polymersToAdd")}
        queryKey={queryKeys.draftPolymersPage}
        fetchPage={(name, page) => fetchDraftPolymers(name, page, PAGE_SIZES.list)}
        errorText={t("polymers.listFailed")}
        renderItem={(polymer) => (
          <>
            <Text>{polymer.name}</Text>
            <Button
              size="xs"
              variant="light"
              aria-label={`${t("common.add")} ${polymer.name}`}
              disabled={items.some((i) => i.id === polymer.id)}
              onClick={() =>
                setItems((list) => [...list, newItem(polymer.id, polymer.name, String(DEFAULT_OCCURRENCE))])
              }
            >
              {t("common.add")}
            </Button>
          </>
        )}
      />
      <Text fw={600}>{t("setup.addedPolymers")}</Text>
      <OrderedItems
        items={items}
        valueLabel={t("common.occurrence")}
        errors={itemErrors(errors, "polymers", "occurrence")}
        emptyText={t("setup.noPolymers")}
        onValueChange={(index, value) => setItems((list) => list.map((it, i) => (i === index ? { ...it, value } : it)))}
        onMove={(index, delta) => setItems((list) => moveItem(list, index, delta))}
        onRemove={(index) => setItems((list) => list.filter((_, i) => i !== index))}
        extra={(index) => {
          const composition = compositions.get(items[index]?.id ?? "");
          return composition ? (
            <Text span size="sm" c="dimmed">
              {t("setup.chainAtoms", { atoms: formatCount(composition.estimatedHeavyAtoms) })}
            </Text>
          ) : null;
        }}
      />
      {items.length > 0 && systemAtoms !== undefined ? (
        <Text size="sm" c={tooManyAtoms ? "red" : "dimmed"} role={tooManyAtoms ? "alert" : undefined}>
          {t(tooManyAtoms ? "setup.atomsOverCeiling" : "setup.atomsWithinCeiling", {
            atoms: formatCount(systemAtoms),
            max: formatCount(DEFAULT_JOB_LIMITS.maxAtoms),
          })}
        </Text>
      ) : null}
      <Button onClick={submit} loading={save.isPending} disabled={items.length === 0 || tooManyAtoms} w="fit-content">
        {t("setup.save")}
      </Button>
    </>
  );
}

export function SetupSummary({ setup }: { setup: SystemSetupResponse }) {
  const { t } = useTranslation("polymerBuilder");
  if (!setup.saved) return <Text c="dimmed">{t("setup.notSaved")}</Text>;
  return (
    <Stack gap={2}>
      {setup.cell_dimension_selector === "density" ? (
        <Text size="sm">
          {t("setup.densityLabel")}: {setup.density}
        </Text>
      ) : (
        <Text size="sm">
          {t("fields.cell_sides")}: {setup.cell_sides?.join(" × ")}
        </Text>
      )}
      <Text size="sm">
        {t("setup.hardWalls")}: {setup.potential_wall_z ? t("setup.yes") : t("setup.no")}
      </Text>
      <Text size="sm">
        {t("setup.constructionOrder")}:{" "}
        {setup.construction_order === "random" ? t("setup.random") : t("setup.asListed")}
      </Text>
      {setup.polymers.map((p) => (
        <Text size="sm" key={p.polymer_id}>
          {p.order}. {p.name} × {p.occurrence}
        </Text>
      ))}
    </Stack>
  );
}
