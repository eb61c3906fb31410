import { Button, Stack, Text, Textarea, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import type { BuildingBlock } from "@polyforge/contracts/building-blocks";
import { INPUT_PATTERNS } from "@polyforge/contracts/polymer-builder";
import {
  checkPeptideSequence,
  DEFAULT_MULTIPLIER,
  DEFAULT_OCCURRENCE,
  DEFAULT_RATIO,
  linearBlockSegmentForm,
  linearBlockTotal,
  linearPeptideSegmentForm,
  linearRandomSegmentForm,
  linearRandomTotal,
  type PeptideNaming,
  parseWholeNumber,
  ratioPercentages,
  type SegmentBlockInput,
  type SegmentCreateBody,
} from "@polyforge/contracts/segments";
import { zod4Resolver } from "mantine-form-zod-resolver";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import { queryKeys } from "../api/builderKeys";
import { useCreateSegment as useCreateSegmentRequest } from "../api/createSegment";
import { useAminoacids } from "../api/getAminoacids";
import { fetchDraftBlocksPage } from "../api/getDraftBlocks";
import { LabelledChoice } from "../components/LabelledChoice";
import { formListItems, OrderedItems } from "../components/OrderedItems";
import { SearchableList } from "../components/SearchableList";

/** Creates a segment; on failure the form keeps what the user typed. */
function useCreateSegment(onCreated: () => void) {
  const { t } = useTranslation("polymerBuilder");
  return useCreateSegmentRequest({
    onSuccess: () => {
      toast.success(t("segments.created"));
      onCreated();
    },
    onError: (error) => toast.error(t("segments.createFailed"), { description: error.message }),
  });
}

function BlockPicker({ onPick }: { onPick: (block: BuildingBlock) => void }) {
  const { t } = useTranslation("polymerBuilder");
  return (
    <SearchableList<BuildingBlock>
      label={t("segments.blocksToAdd")}
      queryKey={queryKeys.draftBlocksPage}
      fetchPage={fetchDraftBlocksPage}
      errorText={t("blocks.draftLoadFailed")}
      emptyState={<Text c="dimmed">{t("segments.noDraftBlocks")}</Text>}
      renderItem={(block) => (
        <>
          <Text>{block.name}</Text>
          <Button
            size="xs"
            variant="light"
            onClick={() => onPick(block)}
            aria-label={`${t("common.add")} ${block.name}`}
          >
            {t("common.add")}
          </Button>
        </>
      )}
    />
  );
}

// Types, not interfaces: the resolver takes values as a record.
type BlockSegmentValues = {
  name: string;
  blocks: Array<{ key: string; name: string; building_block_id: string; occurrence: string }>;
};
type RandomSegmentValues = {
  name: string;
  multiplier: string;
  blocks: Array<{ key: string; name: string; building_block_id: string; ratio: string }>;
};

type BlockListValues = BlockSegmentValues | RandomSegmentValues;

/**
 * A segment form of blocks in order (linear block, linear random): the form, checked by `schema` (a
 * field's first message, empty: 'Required field', cleared as soon as the field is valid); the
 * request, which empties the form once the segment exists; and `submit`, which sends `body(values)`
 * when there is a block.
 */
function useBlockListForm<V extends BlockListValues>(
  schema: Parameters<typeof zod4Resolver>[0],
  initialValues: V,
  body: (values: V) => SegmentCreateBody,
) {
  const form = useForm<V>({
    mode: "controlled",
    initialValues,
    validate: zod4Resolver(schema, { errorPriority: "first" }),
    validateInputOnChange: true,
  });
  const create = useCreateSegment(() => form.reset());
  const submit = form.onSubmit((values) => {
    if (values.blocks.length > 0) create.mutate(body(values));
  });
  return { form, create, submit };
}

/** The blocks as the request takes them: in the order shown, each typed number a whole number. */
function blockInputs(blocks: BlockListValues["blocks"]): SegmentBlockInput[] {
  return blocks.map((b, index) => ({
    building_block_id: b.building_block_id,
    order: index + 1,
    ...("ratio" in b ? { ratio: parseWholeNumber(b.ratio) } : { occurrence: parseWholeNumber(b.occurrence) }),
  }));
}

/** Linear block segment: blocks in order, each repeated `occurrence` times. */
export function LinearBlockSegmentForm() {
  const { t } = useTranslation("polymerBuilder");
  const { form, create, submit } = useBlockListForm<BlockSegmentValues>(
    linearBlockSegmentForm,
    { name: "", blocks: [] },
    (values) => ({
      name: values.name.trim(),
      type: "linear_block",
      data: { total_building_blocks: linearBlockTotal(values.blocks.map((b) => b.occurrence)) },
      blocks: blockInputs(values.blocks),
    }),
  );
  const list = formListItems(form, form.values.blocks, "blocks", "building_block_id", "occurrence");
  const occurrences = form.values.blocks.map((b) => b.occurrence);

  return (
    <form noValidate onSubmit={submit}>
      <Stack>
        <TextInput label={t("segments.segmentName")} {...form.getInputProps("name")} />
        <BlockPicker onPick={(b) => list.add(b.id, b.name, String(DEFAULT_OCCURRENCE))} />
        <Text fw={600}>{t("segments.selectedBlocks")}</Text>
        <OrderedItems {...list} valueLabel={t("common.occurrence")} emptyText={t("segments.noSelected")} />
        <Text>{t("segments.total", { total: linearBlockTotal(occurrences) })}</Text>
        <Button type="submit" loading={create.isPending} disabled={list.items.length === 0} w="fit-content">
          {t("segments.create")}
        </Button>
      </Stack>
    </form>
  );
}

/** Linear random segment: each block ratio × multiplier times, shuffled; live percentages and total. */
export function LinearRandomSegmentForm() {
  const { t } = useTranslation("polymerBuilder");
  const { form, create, submit } = useBlockListForm<RandomSegmentValues>(
    linearRandomSegmentForm,
    { name: "", multiplier: String(DEFAULT_MULTIPLIER), blocks: [] },
    (values) => ({
      name: values.name.trim(),
      type: "linear_random",
      data: {
        total_building_blocks: linearRandomTotal(
          values.blocks.map((b) => b.ratio),
          values.multiplier,
        ),
        multiplier: parseWholeNumber(values.multiplier),
      },
      blocks: blockInputs(values.blocks),
    }),
  );
  const list = formListItems(form, form.values.blocks, "blocks", "building_block_id", "ratio");
  const ratios = form.values.blocks.map((b) => b.ratio);
  const percentages = ratioPercentages(ratios);

  return (
    <form noValidate onSubmit={submit}>
      <Stack>
        <TextInput label={t("segments.segmentName")} {...form.getInputProps("name")} />
        <TextInput
          label={t("segments.multiplier")}
          inputMode="numeric"
          w={160}
          {...form.getInputProps("multiplier")}
          onChange={(e) =>
            INPUT_PATTERNS.digits.test(e.currentTarget.value) && form.setFieldValue("multiplier", e.currentTarget.value)
          }
        />
        <BlockPicker onPick={(b) => list.add(b.id, b.name, String(DEFAULT_RATIO))} />
        <Text fw={600}>{t("segments.selectedBlocks")}</Text>
        <OrderedItems
          items={list.items}
          valueLabel={t("segments.ratio")}
          errors={list.errors}
          emptyText={t("segments.noSelected")}
          extra={(index) => t("segments.percentage", { value: percentages[index] })}
          onValueChange={list.onValueChange}
          onRemove={list.onRemove}
        />
        <Text>{t("segments.total", { total: linearRandomTotal(ratios, form.values.multiplier) })}</Text>
        <Button type="submit" loading={create.isPending} disabled={list.items.length === 0} w="fit-content">
          {t("segments.create")}
        </Button>
      </Stack>
    </form>
  );
}

type PeptideValues = { name: string; sequence_naming: PeptideNaming; sequence: string };

/** Linear peptide segment: a sequence of aminoacids in one- or three-letter codes, capped synthetic. */
export function LinearPeptideSegmentForm() {
  const { t } = useTranslation("polymerBuilder");
  const aminoacids = useAminoacids();
  const codes = aminoacids.data?.data.map((a) => ({
    id: a.id,
    one_letter_code: a.data.one_letter_code ?? "",
    three_letter_code: a.data.three_letter_code ?? "",
  }));
  const schemaErrors = zod4Resolver(linearPeptideSegmentForm, { errorPriority: "first" });
  const form = useForm<PeptideValues>({
    mode: "controlled",
    initialValues: { name: "", sequence_naming: "threeLetter", sequence: "" },
    // The schema, then the sequence against the known aminoacids.
    validate: (values) => {
      const errors = schemaErrors(values);
      const check = checkPeptideSequence(values.sequence, values.sequence_naming, codes);
      if (!check.ok) errors.sequence ??= check.message;
      return errors;
    },
    // The name's message goes as soon as it is valid; a sequence is checked on submit (a half-typed
    // one is not wrong yet), its message cleared while it is edited.
    validateInputOnChange: ["name"],
  });
  const create = useCreateSegment(() => form.setValues({ name: "", sequence: "" }));

  const submit = form.onSubmit((values) => {
    const check = checkPeptideSequence(values.sequence, values.sequence_naming, codes);
    if (!check.ok) return;
    create.mutate({
      name: values.name.trim(),
      type: "linear_peptide",
      data: {
        total_building_blocks: check.residues.length,
        sequence: values.sequence.trim(),
        sequence_naming: values.sequence_naming,
        capping_type: "synthetic",
      },
      blocks: check.residues.map((r, index) => ({ building_block_id: r.id, order: index + 1, occurrence: 1 })),
    });
  });

  return (
    <form noValidate onSubmit={submit}>
      <Stack>
        <TextInput label={t("segments.segmentName")} {...form.getInputProps("name")} />
        <LabelledChoice<PeptideNaming>
          label={t("segments.sequenceType")}
          value={form.values.sequence_naming}
          onChange={(value) => form.setFieldValue("sequence_naming", value)}
          options={[
            { value: "threeLetter", label: t("segments.threeLetter") },
            { value: "oneLetter", label: t("segments.oneLetter") },
          ]}
        />
        <Textarea label={t("segments.sequence")} autosize minRows={2} {...form.getInputProps("sequence")} />
        <Button type="submit" loading={create.isPending} w="fit-content">
          {t("segments.create")}
        </Button>
      </Stack>
    </form>
  );
}
