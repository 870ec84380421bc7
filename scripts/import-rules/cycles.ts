// Import cycles in a module graph: one shortest loop per group of modules that import each other.

/** An edge of the graph: the module it leads to, when the checker resolved it to a file. */
export interface GraphEdge {
  target?: string;
}

/** One cycle per strongly connected group of modules (Tarjan), as a path that starts and ends on the same module. */
export function findCycles(graph: ReadonlyMap<string, readonly GraphEdge[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const groups: string[][] = [];
  const next = (file: string): string[] =>
    (graph.get(file) ?? []).flatMap((e) => (e.target && graph.has(e.target) ? [e.target] : []));
  const connect = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file) as number);
    stack.push(file);
    for (const to of next(file)) {
      if (!index.has(to)) connect(to);
      if (stack.includes(to)) low.set(file, Math.min(low.get(file) as number, low.get(to) as number));
    }
    if (low.get(file) !== index.get(file)) return;
    const group = stack.splice(stack.indexOf(file));
    if (group.length > 1 || next(file).includes(file)) groups.push(group);
  };
  for (const file of graph.keys()) if (!index.has(file)) connect(file);
  return groups.map((group) => shortestLoop(group[0] as string, new Set(group), next));
}

/** The shortest path from `start` back to itself inside `group` (breadth first). */
function shortestLoop(start: string, group: ReadonlySet<string>, next: (file: string) => string[]): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const file = queue[i] as string;
    for (const to of next(file)) {
      if (!group.has(to) || cameFrom.has(to)) continue;
      cameFrom.set(to, file);
      if (to === start) {
        const path: string[] = [];
        for (let at = file; at !== start; at = cameFrom.get(at) as string) path.unshift(at);
        return [start, ...path, start];
      }
      queue.push(to);
    }
  }
  return [start, start];
}
