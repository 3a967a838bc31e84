// Types of cli/commandTable.js (plain JavaScript so that bin/execretrieval.js can read it without tsx).
export function helpPageKey(args: string[], pages: Record<string, string>): string | null;
export interface CommandRow {
  name: string;
  summary: string;
  /** File under cli/commands/. */
  module: string;
  /** Name of the module's export function helpPageKey(args: string[], pages: Record<string, string>): string | null;
export that registers the command on a commander program. */
  register: string;
}
export function helpPageKey(args: string[], pages: Record<string, string>): string | null;
export declare const COMMAND_TABLE: readonly CommandRow[];
export function helpPageKey(args: string[], pages: Record<string, string>): string | null;
export declare const PROGRAM: { name: string; version: string; description: string };
export function helpPageKey(args: string[], pages: Record<string, string>): string | null;
export declare function topLevelHelp(): string;
export function helpPageKey(args: string[], pages: Record<string, string>): string | null;
export declare function editDistance(a: string, b: string): number;
export function helpPageKey(args: string[], pages: Record<string, string>): string | null;
export declare function nearestNames(name: string, valid: readonly string[], max?: number): string[];
export function helpPageKey(args: string[], pages: Record<string, string>): string | null;
export declare function unknownNameMessage(what: string, name: string, valid: readonly string[]): string;
export function helpPageKey(args: string[], pages: Record<string, string>): string | null;
export type Route =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'usage'; message: string }
  | { kind: 'load'; row: CommandRow; args: string[] };
export function helpPageKey(args: string[], pages: Record<string, string>): string | null;
export declare function route(args: readonly string[]): Route;
