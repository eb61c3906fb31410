import type { CELL_DIMENSION_SELECTORS, CONSTRUCTION_ORDERS } from "@polyforge/contracts/enums";

export type CellDimensionSelector = (typeof CELL_DIMENSION_SELECTORS)[number];
export type ConstructionOrder = (typeof CONSTRUCTION_ORDERS)[number];
