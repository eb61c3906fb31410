import { Button, SegmentedControl, Stack, Text, Textarea, TextInput } from "@mantine/core";
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
  type SegmentCreateBody,
} from "@polyforge/contracts/segments";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import { itemErrors, newItem, type OrderedItem, OrderedItems } from "../components/OrderedItems";
import { SearchableList } from "../components/SearchableList";
import { errorsOf, fieldErrors, moveItem, useRevalidatedErrors } from "../ordering";
import { createSegment, fetchAminoacids, fetchDraftBlocksPage, queryKeys } from "../polymerBuilderApi";

/** Creates a segment; on failure the form keeps what the user typed. */
function useCreateSegment(onCreated: () => void) {
  const { t } = useTranslation("polymerBuilder");
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SegmentCreateBody) => createSegment(body),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.draftSegments });
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

/** Linear block segment: blocks in order, each repeated `occurrence` times. */
export function LinearBlockSegmentForm() {
  const { t } = useTranslation("polymerBuilder");
  const [name, setName] = useState("");
  const [items, setItems] = useState<OrderedItem[]>([]);
  const parse = () =>
    linearBlockSegmentForm.safeParse({
      name,
      blocks: items.map((i) => ({ building_block_id: i.id, occurrence: i.value })),
    });
  const [errors, setErrors] = useRevalidatedErrors(() => errorsOf(parse()), [name, items]);
  const create = useCreateSegment(() => {
    setName("");
    setItems([]);
  });

  function submit() {
    const parsed = parse();
    setErrors(errorsOf(parsed));
    if (!parsed.success || items.length === 0) return;
    create.mutate({
      name: name.trim(),
      type: "linear_block",
      data: { total_building_blocks: linearBlockTotal(items.map((i) => i.value)) },
      blocks: items.map((i, index) => ({
        building_block_id: i.id,
        order: index + 1,
        occurrence: parseWholeNumber(i.value),
      })),
    });
  }

  return (
    <Stack>
      <TextInput
        label={t("segments.segmentName")}
        value={name}
        error={errors.name}
        onChange={(e) => setName(e.currentTarget.value)}
      />
      <BlockPicker onPick={(b) => setItems((list) => [...list, newItem(b.id, b.name, String(DEFAULT_OCCURRENCE))])} />
      <Text fw={600}>{t("segments.selectedBlocks")}</Text>
      <OrderedItems
        items={items}
        valueLabel={t("common.occurrence")}
        errors={itemErrors(errors, "blocks", "occurrence")}
        emptyText={t("segments.noSelected")}
        onValueChange={(index, value) => setItems((list) => list.map((it, i) => (i === index ? { ...it, value } : it)))}
        onMove={(index, delta) => setItems((list) => moveItem(list, index, delta))}
        onRemove={(index) => setItems((list) => list.filter((_, i) => i !== index))}
      />
      <Text>{t("segments.total", { total: linearBlockTotal(items.map((i) => i.value)) })}</Text>
      <Button onClick={submit} loading={create.isPending} disabled={items.length === 0} w="fit-content">
        {t("segments.create")}
      </Button>
    </Stack>
  );
}

/** Linear random segment: each block ratio × multiplier times, shuffled; live percentages and total. */
export function LinearRandomSegmentForm() {
  const { t } = useTranslation("polymerBuilder");
  const [name, setName] = useState("");
  const [multiplier, setMultiplier] = useState(String(DEFAULT_MULTIPLIER));
  const [items, setItems] = useState<OrderedItem[]>([]);
  const parse = () =>
    linearRandomSegmentForm.safeParse({
      name,
      multiplier,
      blocks: items.map((i) => ({ building_block_id: i.id, ratio: i.value })),
    });
  const [errors, setErrors] = useRevalidatedErrors(() => errorsOf(parse()), [name, multiplier, items]);
  const create = useCreateSegment(() => {
    setName("");
    setMultiplier(String(DEFAULT_MULTIPLIER));
    setItems([]);
  });
  const ratios = items.map((i) => i.value);
  const percentages = ratioPercentages(ratios);

  function submit() {
    const parsed = parse();
    setErrors(errorsOf(parsed));
    if (!parsed.success || items.length === 0) return;
    create.mutate({
      name: name.trim(),
      type: "linear_random",
      data: { total_building_blocks: linearRandomTotal(ratios, multiplier), multiplier: parseWholeNumber(multiplier) },
      blocks: items.map((i, index) => ({
        building_block_id: i.id,
        order: index + 1,
        ratio: parseWholeNumber(i.value),
      })),
    });
  }

  return (
    <Stack>
      <TextInput
        label={t("segments.segmentName")}
        value={name}
        error={errors.name}
        onChange={(e) => setName(e.currentTarget.value)}
      />
      <TextInput
        label={t("segments.multiplier")}
        value={multiplier}
        error={errors.multiplier}
        inputMode="numeric"
        w={160}
        onChange={(e) => INPUT_PATTERNS.digits.test(e.currentTarget.value) && setMultiplier(e.currentTarget.value)}
      />
      <BlockPicker onPick={(b) => setItems((list) => [...list, newItem(b.id, b.name, String(DEFAULT_RATIO))])} />
      <Text fw={600}>{t("segments.selectedBlocks")}</Text>
      <OrderedItems
        items={items}
        valueLabel={t("segments.ratio")}
        errors={itemErrors(errors, "blocks", "ratio")}
        emptyText={t("segments.noSelected")}
        extra={(index) => t("segments.percentage", { value: percentages[index] })}
        onValueChange={(index, value) => setItems((list) => list.map((it, i) => (i === index ? { ...it, value } : it)))}
        onRemove={(index) => setItems((list) => list.filter((_, i) => i !== index))}
      />
      <Text>{t("segments.total", { total: linearRandomTotal(ratios, multiplier) })}</Text>
      <Button onClick={submit} loading={create.isPending} disabled={items.length === 0} w="fit-content">
        {t("segments.create")}
      </Button>
    </Stack>
  );
}

/** Linear peptide segment: a sequence of aminoacids in one- or three-letter codes, capped synthetic. */
export function LinearPeptideSegmentForm() {
  const { t } = useTranslation("polymerBuilder");
  const [name, setName] = useState("");
  const [naming, setNaming] = useState<PeptideNaming>("threeLetter");
  const [sequence, setSequence] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const aminoacids = useQuery({ queryKey: queryKeys.aminoacids, queryFn: fetchAminoacids });
  const create = useCreateSegment(() => {
    setName("");
    setSequence("");
  });

  function submit() {
    const parsed = linearPeptideSegmentForm.safeParse({ name, sequence_naming: naming, sequence });
    const next = parsed.success ? {} : fieldErrors(parsed.error.issues);
    const codes = aminoacids.data?.data.map((a) => ({
      id: a.id,
      one_letter_code: a.data.one_letter_code ?? "",
      three_letter_code: a.data.three_letter_code ?? "",
    }));
    const check = checkPeptideSequence(sequence, naming, codes);
    if (!check.ok) next.sequence ??= check.message;
    setErrors(next);
    if (!parsed.success || !check.ok) return;
    create.mutate({
      name: name.trim(),
      type: "linear_peptide",
      data: {
        total_building_blocks: check.residues.length,
        sequence: sequence.trim(),
        sequence_naming: naming,
        capping_type: "synthetic",
      },
      blocks: check.residues.map((r, index) => ({ building_block_id: r.id, order: index + 1, occurrence: 1 })),
    });
  }

  return (
    <Stack>
      <TextInput
        label={t("segments.segmentName")}
        value={name}
        error={errors.name}
        onChange={(e) => setName(e.currentTarget.value)}
      />
      <Stack gap={4}>
        <Text size="sm" fw={500}>
          {t("segments.sequenceType")}
        </Text>
        <SegmentedControl
          w="fit-content"
          value={naming}
          onChange={(value) => setNaming(value as PeptideNaming)}
          data={[
            { value: "threeLetter", label: t("segments.threeLetter") },
            { value: "oneLetter", label: t("segments.oneLetter") },
          ]}
        />
      </Stack>
      <Textarea
        label={t("segments.sequence")}
        value={sequence}
        error={errors.sequence}
        autosize
        minRows={2}
        onChange={(e) => setSequence(e.currentTarget.value)}
      />
      <Button onClick={submit} loading={create.isPending} w="fit-content">
        {t("segments.create")}
      </Button>
    </Stack>
  );
}
