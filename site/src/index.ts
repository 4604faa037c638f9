/** @module The static site (issue 3). */
export {};
