import { Button, Group, Modal, Stack, Textarea, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { feedbackSchema } from "@polyforge/contracts/feedback";
import { zod4Resolver } from "mantine-form-zod-resolver";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import { type FeedbackValues, useSendFeedback } from "./api/sendFeedback";

/** 'Send us your feedback' (SPEC §2/§5): title optional, description required; PUT /api/v2/feedback. */
export function FeedbackModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const form = useForm<FeedbackValues>({
    mode: "controlled",
    initialValues: { title: "", description: "" },
    validate: zod4Resolver(feedbackSchema),
  });
  const send = useSendFeedback({
    onSuccess: () => {
      toast.success(t("feedback.success"));
      form.reset();
      onClose();
    },
    // The modal stays open with what the user typed, so they can try again.
    onError: () => toast.error(t("feedback.error")),
  });

  return (
    <Modal opened={opened} onClose={onClose} title={t("feedback.title")} closeOnClickOutside={false} size="lg">
      <form onSubmit={form.onSubmit((values) => send.mutate(values))} noValidate>
        <Stack>
          <TextInput label={t("feedback.titleLabel")} {...form.getInputProps("title")} />
          <Textarea
            label={t("feedback.descriptionLabel")}
            withAsterisk
            autosize
            minRows={5}
            {...form.getInputProps("description")}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t("actions.close")}
            </Button>
            <Button type="submit" loading={send.isPending}>
              {t("actions.submit")}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
