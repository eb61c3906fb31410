/**
 * Pages of a list call (ARCHITECTURE §3): the query's page_num (from 1) and page_size, named as the
 * API names them from the route to the repository, and the response's metadata.
 */
export interface Page {
  page_num: number;
  page_size: number;
}

/** The rows before the page. */
export function pageOffset(page: Page): number {
  return (page.page_num - 1) * page.page_size;
}

/** A list page's rows and the metadata of ARCHITECTURE §3. */
export function listPage<T>(data: T[], page: Page, numRecords: number) {
  return { data, metadata: { page_num: page.page_num, page_size: page.page_size, num_records: numRecords } };
}
