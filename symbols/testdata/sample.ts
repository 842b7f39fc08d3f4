import { helper } from './util';

/** A shape with an area. */
export interface Shape {
  area(): number;
}

// Circle is round.
export class Circle extends Base implements Shape {
  constructor(private r: number) { super(); }
  area(): number { return helper(this.r) * Math.PI; }
  scale = (k: number): Circle => new Circle(this.r * k);
  #grow(): number { return this.#step(); }
  #step = (): number => 1;
  label: string = 'circle';
}

export type ID = string;
export enum Color { Red, Green }
export const double = (a: number): number => a * 2;
export function make(): Circle { return new Circle(1); }
