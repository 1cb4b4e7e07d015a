/** A driver result's id, `driver/scenario@config`: the key of --expect files and profiles. */
export function resultId(driver: string, scenario: string, config: string): string {
  return `${driver}/${scenario}@${config}`;
}
