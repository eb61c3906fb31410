import { lazyRouteComponent } from "@tanstack/react-router";
import { lazy } from "react";

/**
 * The pages behind routes other than the dashboard, each loaded on first visit (or on hover of a
 * link to it: the router preloads on intent), so the first screen does not wait for every feature.
 */
export const BuildingBlocksCatalogue = lazyRouteComponent(
  () => import("../../features/building-blocks/BuildingBlocksCatalogue"),
  "BuildingBlocksCatalogue",
);
export const BlockDetailPage = lazyRouteComponent(
  () => import("../../features/building-blocks/BlockDetailPage"),
  "BlockDetailPage",
);
export const CreateBlockPage = lazyRouteComponent(
  () => import("../../features/building-blocks/CreateBlockPage"),
  "CreateBlockPage",
);
export const PolymerBuilderPage = lazyRouteComponent(
  () => import("../../features/polymer-builder/PolymerBuilderPage"),
  "PolymerBuilderPage",
);
export const SystemsCatalogue = lazyRouteComponent(
  () => import("../../features/systems/SystemsCatalogue"),
  "SystemsCatalogue",
);
export const SystemDetailPage = lazyRouteComponent(
  () => import("../../features/systems/SystemDetailPage"),
  "SystemDetailPage",
);
export const AddMolecularSystemPage = lazyRouteComponent(
  () => import("../../features/molecular-system/AddMolecularSystemPage"),
  "AddMolecularSystemPage",
);
/** The add-molecular-system flow inside a system's detail page (origin upload or smiles). */
export const MolecularSystemFlow = lazy(() =>
  import("../../features/molecular-system/MolecularSystemFlow").then((module) => ({
    default: module.MolecularSystemFlow,
  })),
);
export const AccountPage = lazyRouteComponent(() => import("../../features/account/AccountPage"), "AccountPage");
export const ProjectsPage = lazyRouteComponent(() => import("../../features/projects/ProjectsPage"), "ProjectsPage");
