/**
 * @module The canary prompts: a fixed, versioned set of short open prompts every route of a model is
 * sampled on (docs/methodology.md, same model). A set is never edited once published: a change is a
 * new set with a new name, and runs are only compared on the set they share.
 */

/** One canary prompt: a stable id within its set and the user message sent, as is. */
export interface CanaryPrompt {
  id: string;
  text: string;
}

/** A named, versioned set of canary prompts. */
export interface CanaryPromptSet {
  /** The set's name and version, recorded in every run document's `canary.promptSet`. */
  name: string;
  prompts: readonly CanaryPrompt[];
}

/**
 * Version 1: ten short prompts with many plausible answers (so the sampled distribution says much
 * about the model behind a route) and one with few (a continuation, where a changed template shows).
 */
export const CANARY_PROMPTS_V1: CanaryPromptSet = {
  name: "canary-v1",
  prompts: [
    { id: "p01", text: "Write the first sentence of a story that begins on a train." },
    { id: "p02", text: "Describe the sea in one sentence." },
    { id: "p03", text: "Name a few fruits and say which you like best." },
    { id: "p04", text: "Tell me one fact about the moon." },
    { id: "p05", text: "Write a haiku about autumn." },
    { id: "p06", text: "Explain what a computer does, briefly." },
    { id: "p07", text: "Suggest a name for a pet cat and say why." },
    { id: "p08", text: "Continue the list: Monday, Tuesday, Wednesday," },
    { id: "p09", text: "Give one tip for sleeping well." },
    { id: "p10", text: "Write the opening line of a letter to an old friend." },
  ],
};

/** The set new runs use. */
export const CANARY_PROMPTS: CanaryPromptSet = CANARY_PROMPTS_V1;
