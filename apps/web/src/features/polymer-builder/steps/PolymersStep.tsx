import { Accordion, ActionIcon, Button, Group, Select, Stack, Text, TextInput, Title } from "@mantine/core";
import { type UseFormReturnType, useForm } from "@mantine/form";
import { TACTICITIES, type Tacticity } from "@polyforge/contracts/enums";
import { INPUT_PATTERNS } from "@polyforge/contracts/polymer-builder";
import {
  DEFAULT_TACTICITY,
  linearPolymerForm,
  type PolymerResponse,
  polymerForceFieldLabel,
  polymerForceFieldOptions,
} from "@polyforge/contracts/polymers";
import { DEFAULT_OCCURRENCE, parseWholeNumber } from "@polyforge/contracts/segments";
import { IconTrash } from "@tabler/icons-react";
import type { TFunction } from "i18next";
import { zod4Resolver } from "mantine-form-zod-resolver";
import { useEffect, useMemo } from "react";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import { useIdentity } from "../../../lib/auth/useIdentity";
import { queryKeys } from "../api/builderKeys";
import { useCreatePolymer } from "../api/createPolymer";
import { deletePolymer } from "../api/deletePolymer";
import { useDraftPolymers } from "../api/getDraftPolymers";
import { useDraftSegments } from "../api/getDraftSegments";
import { useSetup } from "../api/getSetup";
import { formListItems, OrderedItems } from "../components/OrderedItems";
import { StepLayout } from "../components/StepLayout";
import { useOptimisticDelete } from "../useOptimisticDelete";
import { useProchiralUnits } from "../useProchiralUnits";

// A type, not an interface: the resolver takes values as a record.
type PolymerValues = {
  name: string;
  /** "" until one is chosen (the schema says 'Required field'). */
  force_field: string;
  segments: Array<{ key: string; segment_id: string; name: string; occurrence: string }>;
  tacticity: Tacticity;
  /** Text while typing; checked (0 to 1) for atactic only. */
  meso_fraction: string;
};

const INITIAL_VALUES: PolymerValues = {
  name: "",
  force_field: "",
  segments: [],
  tacticity: DEFAULT_TACTICITY.kind,
  meso_fraction: String(DEFAULT_TACTICITY.meso_fraction),
};

/** Issue 22: how the engine sets the prochiral backbone centres of the polymer's units, offered
 * only when one of its units has a centre its SMILES leaves open. */
function TacticityFields({ form, units }: { form: UseFormReturnType<PolymerValues>; units: string[] }) {
  const { t } = useTranslation("polymerBuilder");
  return (
    <Group align="flex-start" data-testid="tacticity">
      <Select
        label={t("polymers.tacticity")}
        description={t("polymers.tacticityHelp", { units: units.join(", ") })}
        w={340}
        allowDeselect={false}
        data={TACTICITIES.map((value) => ({ value, label: t(`polymers.tacticities.${value}`) }))}
        value={form.values.tacticity}
        onChange={(value) => value && form.setFieldValue("tacticity", value as Tacticity)}
      />
      {form.values.tacticity === "atactic" ? (
        <TextInput
          label={t("polymers.mesoFraction")}
          description={t("polymers.mesoFractionHelp")}
          w={300}
          inputMode="decimal"
          value={form.values.meso_fraction}
          error={form.errors.meso_fraction}
          onChange={(event) => {
            const text = event.currentTarget.value;
            if (INPUT_PATTERNS.decimal.test(text)) form.setFieldValue("meso_fraction", text);
          }}
        />
      ) : null}
    </Group>
  );
}

type PolymerForm = UseFormReturnType<PolymerValues>;

/** The prochiral units of the chosen segments; a hidden tacticity choice is neither sent nor
 * checked, so it goes back to the default once no unit takes one. */
function useTacticityOffer(form: PolymerForm) {
  const segmentIds = useMemo(() => form.values.segments.map((s) => s.segment_id), [form.values.segments]);
  const prochiralUnits = useProchiralUnits(segmentIds);
  const offersTacticity = prochiralUnits.length > 0;
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the offer changes, not on every form render
  useEffect(() => {
    if (!offersTacticity) {
      form.setValues({ tacticity: INITIAL_VALUES.tacticity, meso_fraction: INITIAL_VALUES.meso_fraction });
    }
  }, [offersTacticity]);
  return prochiralUnits;
}

/** The create request; without a unit that takes one, the server's default (atactic 0.5) is left alone. */
function polymerRequest(values: PolymerValues, offersTacticity: boolean) {
  return {
    name: values.name.trim(),
    force_field: values.force_field,
    segments: values.segments.map((s, index) => ({
      segment_id: s.segment_id,
      occurrence: parseWholeNumber(s.occurrence),
      order: index + 1,
    })),
    ...(offersTacticity
      ? {
          tacticity:
            values.tacticity === "atactic"
              ? { kind: values.tacticity, meso_fraction: Number(values.meso_fraction) }
              : { kind: values.tacticity },
        }
      : {}),
  };
}

/** Linear polymer: segments in order with occurrences; force fields offered by organization. */
function LinearPolymerForm() {
  const { t } = useTranslation("polymerBuilder");
  const { organization } = useIdentity();
  const segments = useDraftSegments();
  const form = useForm<PolymerValues>({
    mode: "controlled",
    initialValues: INITIAL_VALUES,
    // The first message of a field, as the contracts order them (empty: "Required field").
    validate: zod4Resolver(linearPolymerForm, { errorPriority: "first" }),
    // 'Required field' goes as soon as the field is valid again, not only on the next submit.
    validateInputOnChange: true,
  });
  const list = formListItems(form, form.values.segments, "segments", "segment_id", "occurrence");
  const available = segments.data?.data ?? [];
  const prochiralUnits = useTacticityOffer(form);
  const offersTacticity = prochiralUnits.length > 0;
  const create = useCreatePolymer({
    onSuccess: () => {
      toast.success(t("polymers.created"));
      form.reset();
    },
    onError: (error) => toast.error(t("polymers.createFailed"), { description: error.message }),
  });
  const submit = form.onSubmit((values) => create.mutate(polymerRequest(values, offersTacticity)));

  // SPEC §5: the form is disabled while no segment exists.
  if (segments.isSuccess && available.length === 0) return <Text c="dimmed">{t("polymers.noSegments")}</Text>;
  return (
    <form noValidate onSubmit={submit}>
      <Stack>
        <TextInput label={t("polymers.polymerName")} {...form.getInputProps("name")} />
        <Select
          label={t("polymers.forceField")}
          w={260}
          data={polymerForceFieldOptions(organization)}
          value={form.values.force_field || null}
          error={form.errors.force_field}
          onChange={(value) => form.setFieldValue("force_field", value ?? "")}
        />
        <PolymerSegments available={available} loadFailed={segments.isError} list={list} />
        {offersTacticity ? <TacticityFields form={form} units={prochiralUnits} /> : null}
        <Button type="submit" loading={create.isPending} disabled={list.items.length === 0} w="fit-content">
          {t("polymers.create")}
        </Button>
      </Stack>
    </form>
  );
}

type PolymerSegmentsProps = {
  available: Array<{ id: string; name: string; type: string }>;
  loadFailed: boolean;
  list: ReturnType<typeof formListItems>;
};

/** The draft's segments to add, and the chosen ones in order with their occurrences. */
function PolymerSegments({ available, loadFailed, list }: PolymerSegmentsProps) {
  const { t } = useTranslation("polymerBuilder");
  return (
    <>
      <Text fw={600}>{t("polymers.segmentsToAdd")}</Text>
      {loadFailed && <Text c="red">{t("segments.blocksLoadFailed")}</Text>}
      {available.map((segment) => (
        <Group key={segment.id} justify="space-between">
          <Text>
            {segment.name}{" "}
            <Text span c="dimmed">
              ({t(`segments.types.${segment.type}`)})
            </Text>
          </Text>
          <Button
            size="xs"
            variant="light"
            aria-label={`${t("common.add")} ${segment.name}`}
            onClick={() => list.add(segment.id, segment.name, String(DEFAULT_OCCURRENCE))}
          >
            {t("common.add")}
          </Button>
        </Group>
      ))}
      <Text fw={600}>{t("polymers.selectedSegments")}</Text>
      <OrderedItems {...list} valueLabel={t("common.occurrence")} emptyText={t("polymers.noSelected")} />
    </>
  );
}

/** A chosen tacticity other than the default (atactic 0.5), as ", isotactic" or ", atactic 0.7 meso". */
function tacticityNote(polymer: PolymerResponse, t: TFunction<"polymerBuilder">): string {
  const tacticity = polymer.tacticity ?? DEFAULT_TACTICITY;
  if (tacticity.kind === DEFAULT_TACTICITY.kind && tacticity.meso_fraction === DEFAULT_TACTICITY.meso_fraction) {
    return "";
  }
  return tacticity.kind === "atactic"
    ? `, ${t("polymers.atacticMeso", { meso: tacticity.meso_fraction })}`
    : `, ${t(`polymers.tacticities.${tacticity.kind}`).toLowerCase()}`;
}

/** Step 3: only linear polymers can be added; the dendrimer kinds are shown disabled. */
export function PolymersStep() {
  const { t } = useTranslation("polymerBuilder");
  const polymers = useDraftPolymers();
  const setup = useSetup();
  // Deleting a polymer also takes it out of the saved system setup: say so, and when it was the
  // setup's last polymer, that step 4 must be saved again.
  const deleteAndTell = async (id: string) => {
    const saved = setup.data?.saved ? setup.data.polymers : [];
    const inSetup = saved.find((p) => p.polymer_id === id);
    await deletePolymer(id);
    if (!inSetup) return;
    if (saved.length === 1) toast.warning(t("polymers.setupEmptied", { name: inSetup.name }));
    else toast.info(t("polymers.setupShrunk", { name: inSetup.name }));
  };
  const remove = useOptimisticDelete<PolymerResponse>(queryKeys.draftPolymers, deleteAndTell, {
    deleted: t("polymers.deleted"),
    failed: t("polymers.deleteFailed"),
  });
  const list = polymers.data?.data ?? [];
  return (
    <StepLayout
      main={
        <>
          <Title order={3}>{t("polymers.heading")}</Title>
          <Accordion variant="separated" defaultValue="linear">
            <Accordion.Item value="linear">
              <Accordion.Control>{t("polymers.linear")}</Accordion.Control>
              <Accordion.Panel>
                <LinearPolymerForm />
              </Accordion.Panel>
            </Accordion.Item>
            {(["dendrimer", "dendrimerStar", "dendrimerBrush", "dendrimerDumbbell"] as const).map((key) => (
              <Accordion.Item value={key} key={key}>
                <Accordion.Control disabled>{t(`polymers.${key}`)}</Accordion.Control>
              </Accordion.Item>
            ))}
          </Accordion>
        </>
      }
      summaryTitle={t("polymers.summary")}
      summary={
        <Stack gap="xs" data-testid="added-polymers">
          {polymers.isError && <Text c="red">{t("polymers.loadFailed")}</Text>}
          <Text size="sm" fw={600}>
            {t("polymers.linearCount", { count: list.length })}
          </Text>
          {list.length === 0 && <Text c="dimmed">{t("polymers.none")}</Text>}
          {list.map((polymer) => (
            <Group key={polymer.id} justify="space-between" wrap="nowrap">
              <Text size="sm">
                {polymer.name}{" "}
                <Text span c="dimmed">
                  ({polymerForceFieldLabel(polymer.force_field)}
                  {tacticityNote(polymer, t)})
                </Text>
              </Text>
              <ActionIcon
                variant="subtle"
                color="red"
                aria-label={`${t("common.remove")} ${polymer.name}`}
                onClick={() => remove.mutate(polymer.id)}
              >
                <IconTrash size={16} />
              </ActionIcon>
            </Group>
          ))}
        </Stack>
      }
    />
  );
}
