import { Anchor, Stack, Title } from "@mantine/core";
import {
  type BlockSmilesField,
  type CreatableBlockType,
  type CreateBuildingBlockBody,
  DEFAULT_CAPPING_CENTRAL_UNIT,
  DEFAULT_HEAD_REPEATING_UNIT,
  DEFAULT_TAIL_REPEATING_UNIT,
} from "@polyforge/contracts/building-blocks";
import { Link, useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import { useCreateBlock } from "./api/createBlock";
import { type BlockData, BlockForm, type BlockFormValues } from "./BlockForm";

/** Empty required units and the default caps of SPEC §5. */
const INITIAL_DATA: Record<CreatableBlockType, BlockData> = {
  linear: {
    repeating_unit: "",
    head_repeating_unit: DEFAULT_HEAD_REPEATING_UNIT,
    tail_repeating_unit: DEFAULT_TAIL_REPEATING_UNIT,
  },
  dendrimer: {
    central_unit: "",
    repeating_unit: "",
    capping_central_unit: DEFAULT_CAPPING_CENTRAL_UNIT,
    head_repeating_unit: DEFAULT_HEAD_REPEATING_UNIT,
    tail_repeating_unit: DEFAULT_TAIL_REPEATING_UNIT,
  },
};

const FIRST_FIELD: Record<CreatableBlockType, BlockSmilesField> = {
  linear: "repeating_unit",
  dendrimer: "central_unit",
};

/** /building-blocks/create/linear and /building-blocks/create/dendrimer. */
export function CreateBlockPage({ type }: { type: CreatableBlockType }) {
  const { t } = useTranslation("buildingBlocks");
  const navigate = useNavigate();
  // One key for this form: a second submit of it (double click, retry) cannot make a second block.
  const [idempotencyKey] = useState(() => crypto.randomUUID());
  const create = useCreateBlock({
    idempotencyKey,
    mutationConfig: {
      onSuccess: async () => {
        toast.success(t(`create.${type}.success`));
        await navigate({ to: "/building-blocks" });
      },
      onError: () => toast.error(t(`create.${type}.failed`)),
    },
  });

  return (
    <Stack gap="lg" maw={900}>
      <Anchor component={Link} to="/building-blocks" size="sm">
        {t("backToCatalogue")}
      </Anchor>
      <Title order={2}>{t(`create.${type}.title`)}</Title>
      <BlockForm
        type={type}
        initialValues={{ name: "", description: "", data: INITIAL_DATA[type] }}
        initialEditingField={FIRST_FIELD[type]}
        submitLabel={t("create.submit")}
        submitting={create.isPending}
        onSubmit={({ name, description, data }: BlockFormValues) =>
          create.mutateAsync({
            type,
            version: 0,
            name,
            description: description || undefined,
            data,
          } as CreateBuildingBlockBody)
        }
      />
    </Stack>
  );
}
