import { Alert, Button, Group, Radio, Stack, Switch, Text, TextInput, Title } from "@mantine/core";
import { type UseFormReturnType, useForm } from "@mantine/form";
import {
  type CellContents,
  type CellSides,
  cellTooSmallMessage,
  impliedCubeEdge,
  impliedDensity,
} from "@polyforge/contracts/cell-packing";
import {
  densityFromText,
  INPUT_PATTERNS,
  type SystemSetupResponse,
  systemSetupFormFor,
} from "@polyforge/contracts/polymer-builder";
import type { PolymerResponse } from "@polyforge/contracts/polymers";
import { DEFAULT_OCCURRENCE, parseWholeNumber } from "@polyforge/contracts/segments";
import { zod4Resolver } from "mantine-form-zod-resolver";
import { useEffect, useMemo } from "react";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import { useJobLimits } from "../../../lib/config/useJobLimits";
import { useErrorsRechecked } from "../../../lib/forms/useErrorsRechecked";
import { PAGE_SIZES, queryKeys } from "../api/builderKeys";
import { fetchDraftPolymers, useDraftPolymers } from "../api/getDraftPolymers";
import { useSetup } from "../api/getSetup";
import { useSaveSetup } from "../api/saveSetup";
import { LabelledChoice } from "../components/LabelledChoice";
import { formListItems, type OrderedItem, OrderedItems } from "../components/OrderedItems";
import { SearchableList } from "../components/SearchableList";
import { StepLayout } from "../components/StepLayout";
import type { CellDimensionSelector, ConstructionOrder } from "../setupTypes";
import { type PolymerComposition, useDraftComposition } from "../useComposition";

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

/** Every atom (hydrogens included) and the mass of the chains typed so far, as RDKit measures their
 * units; undefined until every polymer's chain is measured. */
function cellContents(items: OrderedItem[], compositions: Map<string, PolymerComposition>): CellContents | undefined {
  let atoms = 0;
  let mass = 0;
  for (const item of items) {
    const chain = compositions.get(item.id)?.chain;
    if (!chain) return undefined;
    const chains = parseWholeNumber(item.value);
    atoms += chains * chain.atoms;
    mass += chains * chain.mass;
  }
  return items.length > 0 ? { atoms, mass } : undefined;
}

/** A positive finite number typed in a field, else undefined. */
function typedPositive(text: string): number | undefined {
  const value = Number(text.trim());
  return text.trim() !== "" && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** The cell the engine would build from the values typed: the sides, or the cube of the density. */
function typedCell(values: SetupValues, contents: CellContents | undefined): CellSides | undefined {
  if (values.cell_dimension_selector === "cell_sides") {
    const sides = values.cell_sides.map(typedPositive);
    return sides.every((side) => side !== undefined) ? (sides as unknown as CellSides) : undefined;
  }
  const density = typedPositive(values.density);
  if (density === undefined || contents === undefined) return undefined;
  const edge = impliedCubeEdge(contents.mass, density);
  return [edge, edge, edge];
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

type SetupValues = {
  cell_dimension_selector: CellDimensionSelector;
  density: string;
  cell_sides: [string, string, string];
  potential_wall_z: boolean;
  construction_order: ConstructionOrder;
  polymers: Array<{ key: string; name: string; polymer_id: string; occurrence: string }>;
};

type SetupForm = UseFormReturnType<SetupValues>;
type PolymerList = ReturnType<typeof formListItems>;

function initialSetupValues(setup: SystemSetupResponse): SetupValues {
  return {
    cell_dimension_selector: setup.cell_dimension_selector,
    density: String(setup.density ?? ""),
    cell_sides: (setup.cell_sides ?? [100, 100, 100]).map(String) as [string, string, string],
    potential_wall_z: setup.potential_wall_z,
    construction_order: setup.construction_order,
    polymers: setup.polymers.map((p) => ({
      key: crypto.randomUUID(),
      name: p.name,
      polymer_id: p.polymer_id,
      occurrence: String(p.occurrence),
    })),
  };
}

/** The save request from the form's values: only the chosen cell measure is sent. */
function setupRequest(v: SetupValues) {
  return {
    cell_dimension_selector: v.cell_dimension_selector,
    density: v.cell_dimension_selector === "density" ? densityFromText(v.density) : null,
    cell_sides: v.cell_dimension_selector === "cell_sides" ? v.cell_sides.map(Number) : null,
    potential_wall_z: v.potential_wall_z,
    construction_order: v.construction_order,
    polymers: v.polymers.map((p, index) => ({
      polymer_id: p.polymer_id,
      order: index + 1,
      occurrence: parseWholeNumber(p.occurrence),
    })),
  };
}

/** The setup form, validated against this deployment's bounds, following the draft's polymers. */
function useSetupForm(setup: SystemSetupResponse, limits: ReturnType<typeof useJobLimits>) {
  const schema = useMemo(() => systemSetupFormFor(limits), [limits]);
  const form = useForm<SetupValues>({
    mode: "controlled",
    initialValues: initialSetupValues(setup),
    // The first message of a field (a side out of bounds, 'Required field'), gone once it is right.
    validate: zod4Resolver(schema, { errorPriority: "first" }),
    validateInputOnChange: true,
  });
  useErrorsRechecked(form);
  // A polymer deleted in step 3 (or another tab) leaves the list being edited.
  const draftPolymers = useDraftPolymers();
  // biome-ignore lint/correctness/useExhaustiveDependencies: follows the draft's polymers only.
  useEffect(() => {
    if (!draftPolymers.data) return;
    const existing = new Set(draftPolymers.data.data.map((p) => p.id));
    const current = form.getValues().polymers;
    if (!current.every((p) => existing.has(p.polymer_id)))
      form.setFieldValue(
        "polymers",
        current.filter((p) => existing.has(p.polymer_id)),
      );
  }, [draftPolymers.data]);
  return form;
}

function SetupForm({ setup }: { setup: SystemSetupResponse }) {
  const { t } = useTranslation("polymerBuilder");
  // This deployment's bounds (cell sides, density) and atom ceiling.
  const limits = useJobLimits();
  const form = useSetupForm(setup, limits);
  const list = formListItems(form, form.values.polymers, "polymers", "polymer_id", "occurrence");
  const items = list.items;
  // The atom ceiling at the chains field: the count follows every keystroke, before any submit.
  const compositions = useDraftComposition().byPolymer;
  const systemAtoms = estimatedSystemAtoms(items, compositions);
  const tooManyAtoms = systemAtoms !== undefined && systemAtoms > limits.maxAtoms;
  // The engine's own refusal of a cell too small for its atoms, said before anything is saved.
  const contents = cellContents(items, compositions);
  const cell = typedCell(form.values, contents);
  const cellTooSmall = contents && cell ? cellTooSmallMessage(contents, cell) : null;
  const save = useSaveSetup(setup.id, {
    onSuccess: () => {
      toast.success(t("setup.saved"));
    },
    onError: (error) => toast.error(t("setup.saveFailed"), { description: error.message }),
  });
  const submit = form.onSubmit((v) => {
    if (!tooManyAtoms && !cellTooSmall) save.mutate(setupRequest(v));
  });

  return (
    <form noValidate onSubmit={submit} style={{ display: "contents" }}>
      <Title order={3}>{t("setup.heading")}</Title>
      <CellFields form={form} />
      <ImpliedCell selector={form.values.cell_dimension_selector} contents={contents} cell={cell} />
      {cellTooSmall ? (
        <Alert color="red" role="alert">
          {cellTooSmall}
        </Alert>
      ) : null}
      <Switch
        label={t("setup.hardWalls")}
        description={t("setup.hardWallsHelp")}
        {...form.getInputProps("potential_wall_z", { type: "checkbox" })}
      />
      <Radio.Group label={t("setup.constructionOrder")} {...form.getInputProps("construction_order")}>
        <Group mt={4}>
          <Radio value="as_listed_in_components" label={t("setup.asListed")} />
          <Radio value="random" label={t("setup.random")} />
        </Group>
      </Radio.Group>
      <SetupPolymers list={list} compositions={compositions} />
      {items.length > 0 && systemAtoms !== undefined ? (
        <Text size="sm" c={tooManyAtoms ? "red" : "dimmed"} role={tooManyAtoms ? "alert" : undefined}>
          {t(tooManyAtoms ? "setup.atomsOverCeiling" : "setup.atomsWithinCeiling", {
            atoms: formatCount(systemAtoms),
            max: formatCount(limits.maxAtoms),
          })}
        </Text>
      ) : null}
      <Button
        type="submit"
        loading={save.isPending}
        disabled={items.length === 0 || tooManyAtoms || cellTooSmall !== null}
        w="fit-content"
      >
        {t("setup.save")}
      </Button>
    </form>
  );
}

/** Density or the three cell sides, chosen by a segmented control; only decimals can be typed. */
function CellFields({ form }: { form: SetupForm }) {
  const { t } = useTranslation("polymerBuilder");
  const decimalField = (path: string) => ({
    ...form.getInputProps(path),
    onChange: (event: React.ChangeEvent<HTMLInputElement>) => {
      if (INPUT_PATTERNS.decimal.test(event.currentTarget.value)) form.setFieldValue(path, event.currentTarget.value);
    },
  });
  const selector = form.values.cell_dimension_selector;
  return (
    <>
      <LabelledChoice<CellDimensionSelector>
        label={t("setup.cellDimensions")}
        value={selector}
        onChange={(value) => form.setFieldValue("cell_dimension_selector", value)}
        options={[
          { value: "density", label: t("setup.density") },
          { value: "cell_sides", label: t("setup.cellSides") },
        ]}
      />
      {selector === "density" ? (
        <TextInput w={200} label={t("setup.densityLabel")} {...decimalField("density")} />
      ) : (
        <Group>
          {AXES.map((axis, index) => (
            <TextInput
              key={axis}
              w={120}
              label={t("setup.sideLabel", { axis })}
              {...decimalField(`cell_sides.${index}`)}
            />
          ))}
        </Group>
      )}
    </>
  );
}

/** What the cell typed implies, as it is typed: the density of the chains in the sides given, or the
 * edge of the cube a density gives them. Nothing until every chain is measured. */
function ImpliedCell({
  selector,
  contents,
  cell,
}: {
  selector: CellDimensionSelector;
  contents: CellContents | undefined;
  cell: CellSides | undefined;
}) {
  const { t } = useTranslation("polymerBuilder");
  if (!contents || !cell) return null;
  const text =
    selector === "cell_sides"
      ? t("setup.impliedDensity", { density: impliedDensity(contents.mass, cell).toPrecision(3) })
      : t("setup.impliedEdge", { edge: cell[0].toFixed(1) });
  return (
    <Text size="sm" c="dimmed" data-testid="implied-cell">
      {text}
    </Text>
  );
}

/** The draft's polymers to pick from, and the picked ones with their chain counts and atoms per chain. */
function SetupPolymers({ list, compositions }: { list: PolymerList; compositions: Map<string, PolymerComposition> }) {
  const { t } = useTranslation("polymerBuilder");
  const items = list.items;
  return (
    <>
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
              onClick={() => list.add(polymer.id, polymer.name, String(DEFAULT_OCCURRENCE))}
            >
              {t("common.add")}
            </Button>
          </>
        )}
      />
      <Text fw={600}>{t("setup.addedPolymers")}</Text>
      <OrderedItems
        {...list}
        valueLabel={t("common.occurrence")}
        emptyText={t("setup.noPolymers")}
        extra={(index) => {
          const composition = compositions.get(items[index]?.id ?? "");
          if (!composition) return null;
          // Counted once RDKit has measured the units; until then the estimate, an upper bound.
          const counted = composition.chain?.heavyAtoms;
          return (
            <Text span size="sm" c="dimmed">
              {counted === undefined
                ? t("setup.chainAtomsUpTo", { atoms: formatCount(composition.estimatedHeavyAtoms) })
                : t("setup.chainAtoms", { atoms: formatCount(counted) })}
            </Text>
          );
        }}
      />
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
