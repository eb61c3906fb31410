import { useFeatureIsOn } from "@growthbook/growthbook-react";
import { NavLink, Stack } from "@mantine/core";
import { FLAGS, type FlagName } from "@polyforge/contracts/flags";
import {
  IconAtom,
  IconBook,
  IconCirclePlus,
  IconCpu,
  IconCube,
  IconExternalLink,
  IconHome,
  IconMessage,
  IconTopologyStar3,
} from "@tabler/icons-react";
import { Link, useRouterState } from "@tanstack/react-router";
import type { ComponentType, ReactNode } from "react";
import { useTranslation } from "react-i18next";

interface SidebarEntry {
  to: string;
  labelKey: string;
  icon: ComponentType<{ size?: number }>;
  /** Hidden unless this flag is on. */
  flag?: FlagName;
  /** Whether the entry is the current one; defaults to an exact match of `to`. */
  isActive?: (path: string) => boolean;
}

const underPath = (prefix: string) => (path: string) => path === prefix || path.startsWith(`${prefix}/`);

/** SPEC §2's order. Building Blocks stays active on its create routes and details. */
export const SIDEBAR_ENTRIES: SidebarEntry[] = [
  { to: "/", labelKey: "nav.home", icon: IconHome },
  { to: "/modeling-compute", labelKey: "nav.modelingCompute", icon: IconCpu, flag: FLAGS.MODELING_COMPUTE },
  { to: "/building-blocks", labelKey: "nav.buildingBlocks", icon: IconCube, isActive: underPath("/building-blocks") },
  { to: "/systems", labelKey: "nav.molecularSystems", icon: IconAtom, isActive: underPath("/systems") },
  { to: "/polymer-builder", labelKey: "nav.polymerBuilder", icon: IconTopologyStar3 },
  {
    to: "/add-molecular-system",
    labelKey: "nav.addMolecularSystem",
    icon: IconCirclePlus,
    flag: FLAGS.ADD_MOLECULAR_SYSTEM,
  },
];

export function isEntryActive(entry: SidebarEntry, path: string): boolean {
  return entry.isActive ? entry.isActive(path) : path === entry.to;
}

/** Renders its children only while the feature flag is on. */
function FlagGate({ flag, children }: { flag: FlagName; children: ReactNode }) {
  return useFeatureIsOn(flag) ? children : null;
}

function SidebarLink({ entry, path, onNavigate }: { entry: SidebarEntry; path: string; onNavigate: () => void }) {
  const { t } = useTranslation();
  const Icon = entry.icon;
  const active = isEntryActive(entry, path);
  return (
    <NavLink
      component={Link}
      to={entry.to}
      label={t(entry.labelKey)}
      leftSection={<Icon size={18} />}
      active={active}
      aria-current={active ? "page" : undefined}
      onClick={onNavigate}
    />
  );
}

interface SidebarProps {
  docsUrl: string;
  onFeedback: () => void;
  /** Called when an entry is followed (on small screens the sidebar is an overlay to close). */
  onNavigate: () => void;
}

export function Sidebar({ docsUrl, onFeedback, onNavigate }: SidebarProps) {
  const { t } = useTranslation();
  const path = useRouterState({ select: (state) => state.location.pathname });
  return (
    <Stack justify="space-between" h="100%" gap="xs">
      <nav aria-label={t("nav.label")}>
        {SIDEBAR_ENTRIES.map((entry) =>
          entry.flag ? (
            <FlagGate key={entry.to} flag={entry.flag}>
              <SidebarLink entry={entry} path={path} onNavigate={onNavigate} />
            </FlagGate>
          ) : (
            <SidebarLink key={entry.to} entry={entry} path={path} onNavigate={onNavigate} />
          ),
        )}
      </nav>
      <Stack gap={0}>
        <NavLink
          component="a"
          href={docsUrl}
          target="_blank"
          rel="noopener noreferrer"
          label={t("nav.documentation")}
          leftSection={<IconBook size={18} />}
          rightSection={<IconExternalLink size={14} />}
        />
        <NavLink
          component="button"
          type="button"
          onClick={onFeedback}
          label={t("nav.feedback")}
          leftSection={<IconMessage size={18} />}
        />
      </Stack>
    </Stack>
  );
}
