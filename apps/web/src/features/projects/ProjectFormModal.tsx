import { Button, Group, Modal, Stack, Textarea, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { type Project, type ProjectBody, projectBody } from "@polyforge/contracts/projects";
import { zod4Resolver } from "mantine-form-zod-resolver";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import type { MutationConfig } from "../../lib/api/mutationConfig";
import { ProductError } from "../../lib/api/productError";
import { useCreateProject } from "./api/createProject";
import { useUpdateProject } from "./api/updateProject";

type ProjectValues = {
  name: string;
  description: string;
};

/** 'Create Project' (button Create) or, given a project, 'Update Project' (button Save): SPEC §2, §5. */
export function ProjectFormModal({
  opened,
  project,
  onClose,
}: {
  opened: boolean;
  /** The project to update; none to create one. */
  project?: Project;
  onClose: () => void;
}) {
  const { t } = useTranslation("projects");
  const form = useForm<ProjectValues>({
    mode: "controlled",
    initialValues: { name: "", description: "" },
    validate: zod4Resolver(projectBody),
    // 'Required field' goes as soon as the field is valid again, not only on the next submit.
    validateInputOnChange: true,
  });
  // biome-ignore lint/correctness/useExhaustiveDependencies: the form is filled when the modal opens.
  useEffect(() => {
    if (!opened) return;
    form.setValues({ name: project?.name ?? "", description: project?.description ?? "" });
    form.resetDirty();
    form.clearErrors();
  }, [opened, project]);

  const reactions: MutationConfig<Project, ProjectBody> = {
    onSuccess: () => {
      toast.success(t(project ? "toasts.updated" : "toasts.created"));
      onClose();
    },
    // The modal stays open with what the user typed; a name already used is said at the field.
    onError: (error) => {
      if (error instanceof ProductError && error.code === "PROJECT.VALIDATE.NAME_NOT_UNIQUE") {
        form.setFieldError("name", error.message);
        return;
      }
      const title = t(project ? "toasts.updateFailed" : "toasts.createFailed");
      const reason = error instanceof ProductError && error.status !== null ? error.message : title;
      toast.error(title, reason !== title ? { description: reason } : {});
    },
  };
  const create = useCreateProject(reactions);
  const update = useUpdateProject(project?.id, reactions);
  const save = project ? update : create;

  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={t(project ? "form.updateTitle" : "form.createTitle")}
      closeOnClickOutside={false}
    >
      <form
        noValidate
        onSubmit={form.onSubmit((values) => {
          // A second click while the first is on its way sends nothing.
          if (!save.isPending) save.mutate(projectBody.parse(values));
        })}
      >
        <Stack>
          <TextInput label={t("form.name")} withAsterisk data-autofocus {...form.getInputProps("name")} />
          <Textarea label={t("form.description")} autosize minRows={3} {...form.getInputProps("description")} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t("form.cancel")}
            </Button>
            <Button type="submit" loading={save.isPending}>
              {t(project ? "form.save" : "form.create")}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
