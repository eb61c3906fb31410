import { Group, Stack, Text, ThemeIcon, UnstyledButton } from "@mantine/core";
import { IconCheck } from "@tabler/icons-react";
import { useTranslation } from "react-i18next";
import { blockingStep, STEPS, type Step, type StepCompletion, stepEnabled } from "../useDraftProgress";

type StepState = "completed" | "active" | "disabled" | "open";

function stepState(step: Step, active: Step, completion: StepCompletion): StepState {
  if (step === active) return "active";
  if (!stepEnabled(step, completion)) return "disabled";
  if (step !== 6 && completion[step]) return "completed";
  return "open";
}

/** What keeps a step closed: step 6 says the spec's sentence, the others name what is missing. */
function disabledReason(step: Step, completion: StepCompletion, t: (key: string) => string): string {
  if (step === 6) return t("create.incomplete");
  const blocking = blockingStep(step, completion);
  return blocking === null ? t("stepState.disabled") : t(`missing.${blocking}`);
}

const COLOURS: Record<StepState, string> = { completed: "teal", active: "blue", disabled: "gray", open: "gray" };

/** The six steps with their completed / active / disabled states; enabled steps can be clicked. */
export function BuilderStepper(props: { active: Step; completion: StepCompletion; onSelect: (step: Step) => void }) {
  const { t } = useTranslation("polymerBuilder");
  return (
    <Group component="nav" aria-label={t("title")} gap="md" wrap="wrap">
      {STEPS.map((step) => {
        const state = stepState(step, props.active, props.completion);
        return (
          <UnstyledButton
            key={step}
            disabled={state === "disabled"}
            onClick={() => props.onSelect(step)}
            aria-current={state === "active" ? "step" : undefined}
            data-state={state}
            title={state === "disabled" ? disabledReason(step, props.completion, t) : undefined}
            style={{
              opacity: state === "disabled" ? 0.45 : 1,
              cursor: state === "disabled" ? "not-allowed" : "pointer",
            }}
          >
            <Group gap={8} wrap="nowrap">
              <ThemeIcon radius="xl" size="md" color={COLOURS[state]} variant={state === "open" ? "outline" : "filled"}>
                {state === "completed" ? <IconCheck size={14} /> : <Text size="xs">{step}</Text>}
              </ThemeIcon>
              <Stack gap={0}>
                <Text size="sm" fw={state === "active" ? 700 : 500}>
                  {t(`steps.${step}`)}
                </Text>
                {state === "completed" && (
                  <Text size="xs" c="teal">
                    {t("stepState.completed")}
                  </Text>
                )}
              </Stack>
            </Group>
          </UnstyledButton>
        );
      })}
    </Group>
  );
}
