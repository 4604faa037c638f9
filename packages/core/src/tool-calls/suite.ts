/**
 * @module The tool-call suites (docs/methodology.md, tool calls): fixed, versioned prompts, each with
 * the function tools it offers and what a right answer holds. A suite is never edited once published:
 * a change is a new suite with a new id, and routes are only compared on the suite they share.
 */

/** A JSON Schema, as sent to the route and as the validator reads it. */
export type JsonSchema = Record<string, unknown>;

/**
 * What a prompt asks of the route: `one-call`, one call whose tool and argument values the prompt
 * fixes; `no-call`, an answer in words (a call is wrong); `parallel`, two independent calls in one
 * answer; `structured`, no tools, a JSON answer to a strict schema (`response_format`).
 */
export type ToolPromptKind = "one-call" | "no-call" | "parallel" | "structured";

/** An OpenAI function tool: sent as `{ type: "function", function: { name, description, parameters } }`. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** A call a right answer holds: its tool and the argument values the prompt fixes (a subset of the arguments). */
export interface ExpectedCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** One prompt of a suite. */
export interface ToolPrompt {
  /** Stable within its suite: results key on it. */
  id: string;
  kind: ToolPromptKind;
  messages: { role: "system" | "user"; content: string }[];
  /** The tools offered; [] for `structured`. */
  tools: ToolDefinition[];
  /** [] for no-call and structured; 1 for one-call; 2 for parallel (in any order). */
  expected: ExpectedCall[];
  /** `structured` only: sent as `response_format: { type: "json_schema", json_schema: { name, schema, strict: true } }`. */
  responseSchema?: { name: string; schema: JsonSchema };
}

/** A named, versioned set of tool-call prompts. */
export interface ToolSuite {
  /** The suite's name and version, recorded in every run document's `toolCalls.suite`. */
  id: string;
  prompts: ToolPrompt[];
}

const CURRENCY = { type: "string", pattern: "^[A-Z]{3}$", description: "ISO 4217 code, such as USD" };

const getWeather: ToolDefinition = {
  name: "get_weather",
  description: "Current weather at a place.",
  parameters: {
    type: "object",
    properties: {
      location: {
        type: "object",
        properties: {
          city: { type: "string", minLength: 1 },
          country: { type: "string", pattern: "^[A-Z]{2}$", description: "ISO 3166-1 alpha-2 code, such as FR" },
        },
        required: ["city", "country"],
        additionalProperties: false,
      },
      unit: { type: "string", enum: ["celsius", "fahrenheit"] },
    },
    required: ["location", "unit"],
    additionalProperties: false,
  },
};

const convertCurrency: ToolDefinition = {
  name: "convert_currency",
  description: "Convert an amount of money from one currency to another at today's rate.",
  parameters: {
    type: "object",
    properties: { amount: { type: "number", minimum: 0 }, from: CURRENCY, to: CURRENCY },
    required: ["amount", "from", "to"],
    additionalProperties: false,
  },
};

const searchWeb: ToolDefinition = {
  name: "search_web",
  description: "Search the web and return the top results.",
  parameters: {
    type: "object",
    properties: {
      query: { type: "string", minLength: 1 },
      max_results: { type: "integer", minimum: 1, maximum: 10 },
    },
    required: ["query"],
    additionalProperties: false,
  },
};

const createEvent: ToolDefinition = {
  name: "create_calendar_event",
  description: "Add an event to the user's calendar.",
  parameters: {
    type: "object",
    properties: {
      title: { type: "string", minLength: 1 },
      date: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$", description: "YYYY-MM-DD" },
      start_time: { type: "string", pattern: "^\\d{2}:\\d{2}$", description: "HH:MM, 24-hour clock" },
      duration_minutes: { type: "integer", minimum: 1, maximum: 1440 },
      attendees: {
        type: "array",
        items: {
          type: "object",
          properties: { name: { type: "string" }, email: { type: "string" } },
          required: ["email"],
          additionalProperties: false,
        },
      },
    },
    required: ["title", "date", "start_time", "duration_minutes"],
    additionalProperties: false,
  },
};

const sendEmail: ToolDefinition = {
  name: "send_email",
  description: "Send an email.",
  parameters: {
    type: "object",
    properties: {
      to: { type: "array", items: { type: "string" }, minItems: 1 },
      subject: { type: "string" },
      body: { type: "string" },
      priority: { type: "string", enum: ["low", "normal", "high"] },
    },
    required: ["to", "subject", "body"],
    additionalProperties: false,
  },
};

const setThermostat: ToolDefinition = {
  name: "set_thermostat",
  description: "Set a room's thermostat.",
  parameters: {
    type: "object",
    properties: {
      room: { type: "string", enum: ["kitchen", "bedroom", "living_room", "office"] },
      temperature_celsius: { type: "number", minimum: 5, maximum: 30 },
      mode: { type: "string", enum: ["heat", "cool", "auto"] },
    },
    required: ["room", "temperature_celsius", "mode"],
    additionalProperties: false,
  },
};

const getStockPrice: ToolDefinition = {
  name: "get_stock_price",
  description: "Latest price of a listed share.",
  parameters: {
    type: "object",
    properties: {
      symbol: { type: "string", pattern: "^[A-Z.]{1,6}$" },
      exchange: { type: "string", enum: ["NASDAQ", "NYSE", "LSE", "XETRA"] },
    },
    required: ["symbol", "exchange"],
    additionalProperties: false,
  },
};

const addTodos: ToolDefinition = {
  name: "add_todos",
  description: "Add items to the user's to-do list.",
  parameters: {
    type: "object",
    properties: {
      items: {
        type: "array",
        minItems: 1,
        items: {
          type: "object",
          properties: {
            text: { type: "string", minLength: 1 },
            priority: { type: "string", enum: ["low", "medium", "high"] },
          },
          required: ["text", "priority"],
          additionalProperties: false,
        },
      },
    },
    required: ["items"],
    additionalProperties: false,
  },
};

const translateText: ToolDefinition = {
  name: "translate_text",
  description: "Translate a text into another language.",
  parameters: {
    type: "object",
    properties: {
      text: { type: "string", minLength: 1 },
      target_language: { type: "string", enum: ["fr", "de", "es", "it", "ja"] },
    },
    required: ["text", "target_language"],
    additionalProperties: false,
  },
};

const getDirections: ToolDefinition = {
  name: "get_directions",
  description: "Directions from one place to another.",
  parameters: {
    type: "object",
    properties: {
      origin: { type: "string", minLength: 1 },
      destination: { type: "string", minLength: 1 },
      mode: { type: "string", enum: ["driving", "walking", "cycling", "transit"] },
    },
    required: ["origin", "destination", "mode"],
    additionalProperties: false,
  },
};

const TOOL_SYSTEM =
  "You are an assistant with tools. Call a tool only when the request needs one, with exactly the values the user gives; otherwise answer in words.";
const JSON_SYSTEM = "Answer only with a JSON object that matches the given schema.";

const ask = (content: string): ToolPrompt["messages"] => [
  { role: "system", content: TOOL_SYSTEM },
  { role: "user", content },
];
const askJson = (content: string): ToolPrompt["messages"] => [
  { role: "system", content: JSON_SYSTEM },
  { role: "user", content },
];

const oneCall = (id: string, content: string, tools: ToolDefinition[], expected: ExpectedCall): ToolPrompt => ({
  id,
  kind: "one-call",
  messages: ask(content),
  tools,
  expected: [expected],
});
const noCall = (id: string, content: string, tools: ToolDefinition[]): ToolPrompt => ({
  id,
  kind: "no-call",
  messages: ask(content),
  tools,
  expected: [],
});
const parallel = (id: string, content: string, tools: ToolDefinition[], expected: [ExpectedCall, ExpectedCall]) => ({
  id,
  kind: "parallel" as const,
  messages: ask(content),
  tools,
  expected,
});
const structured = (id: string, content: string, name: string, schema: JsonSchema): ToolPrompt => ({
  id,
  kind: "structured",
  messages: askJson(content),
  tools: [],
  expected: [],
  responseSchema: { name, schema },
});

/** A strict-mode object schema: every property required, none other allowed (what `strict: true` asks). */
const strictObject = (properties: Record<string, JsonSchema>): JsonSchema => ({
  type: "object",
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

/**
 * Version 1: 24 prompts. 10 one-call (the tool and the values it must be given are in the prompt, with
 * look-alike tools offered beside it), 5 no-call, 5 parallel (two calls of one or two tools), 4
 * structured (strict JSON schemas with nested objects, enums and arrays).
 */
export const TOOLS_V1: ToolSuite = {
  id: "tools-v1",
  prompts: [
    oneCall("currency-usd-eur", "Convert 12 USD to EUR.", [convertCurrency, getWeather, searchWeb], {
      name: "convert_currency",
      arguments: { amount: 12, from: "USD", to: "EUR" },
    }),
    oneCall(
      "weather-paris",
      "What's the weather in Paris, France right now? Give it in celsius.",
      [getWeather, searchWeb, convertCurrency],
      { name: "get_weather", arguments: { location: { city: "Paris", country: "FR" }, unit: "celsius" } },
    ),
    oneCall(
      "search-marie-curie",
      "Search the web for 'Marie Curie Nobel prizes' and show me 3 results.",
      [searchWeb, getWeather, translateText],
      { name: "search_web", arguments: { query: "Marie Curie Nobel prizes", max_results: 3 } },
    ),
    oneCall(
      "event-standup",
      "Put 'Team standup' in my calendar on 2026-03-02 at 09:30 for 15 minutes, with ana@example.com.",
      [createEvent, sendEmail, getWeather],
      {
        name: "create_calendar_event",
        arguments: {
          title: "Team standup",
          date: "2026-03-02",
          start_time: "09:30",
          duration_minutes: 15,
          attendees: [{ email: "ana@example.com" }],
        },
      },
    ),
    oneCall(
      "email-report",
      "Email bob@example.com with the subject 'Report' and the body 'The report is ready.' at high priority.",
      [sendEmail, createEvent, searchWeb],
      {
        name: "send_email",
        arguments: { to: ["bob@example.com"], subject: "Report", body: "The report is ready.", priority: "high" },
      },
    ),
    oneCall("thermostat-bedroom", "Heat the bedroom to 21 degrees celsius.", [setThermostat, getWeather, searchWeb], {
      name: "set_thermostat",
      arguments: { room: "bedroom", temperature_celsius: 21, mode: "heat" },
    }),
    oneCall("stock-nvda", "What is NVDA trading at on the NASDAQ?", [getStockPrice, searchWeb, convertCurrency], {
      name: "get_stock_price",
      arguments: { symbol: "NVDA", exchange: "NASDAQ" },
    }),
    oneCall(
      "todos-two",
      "Add two to-dos: 'buy milk' at low priority and 'file taxes' at high priority.",
      [addTodos, createEvent, sendEmail],
      {
        name: "add_todos",
        arguments: {
          items: [
            { text: "buy milk", priority: "low" },
            { text: "file taxes", priority: "high" },
          ],
        },
      },
    ),
    oneCall(
      "translate-cafe",
      "Use the translator to put 'Un café, s'il vous plaît' into Spanish (es).",
      [translateText, searchWeb, getWeather],
      { name: "translate_text", arguments: { text: "Un café, s'il vous plaît", target_language: "es" } },
    ),
    oneCall(
      "directions-zurich",
      "How do I get from Zürich HB to Zürich Airport by transit?",
      [getDirections, getWeather, searchWeb],
      { name: "get_directions", arguments: { origin: "Zürich HB", destination: "Zürich Airport", mode: "transit" } },
    ),
    noCall("none-arithmetic", "What is 17 plus 25? Answer with the number only.", [
      convertCurrency,
      getWeather,
      searchWeb,
    ]),
    noCall("none-haiku", "Write a haiku about rain.", [getWeather, searchWeb, translateText]),
    noCall("none-greeting", "Hi! Just saying hello, no need to do anything.", [sendEmail, createEvent, addTodos]),
    noCall("none-definition", "In one sentence, what does a thermostat do?", [setThermostat, searchWeb, getWeather]),
    noCall("none-rewrite", "Rewrite 'the cat sat on the mat' in capital letters.", [
      translateText,
      sendEmail,
      searchWeb,
    ]),
    parallel(
      "weather-two-cities",
      "What's the weather in Tokyo, Japan and in Lima, Peru? Use celsius for both.",
      [getWeather, searchWeb, convertCurrency],
      [
        { name: "get_weather", arguments: { location: { city: "Tokyo", country: "JP" }, unit: "celsius" } },
        { name: "get_weather", arguments: { location: { city: "Lima", country: "PE" }, unit: "celsius" } },
      ],
    ),
    parallel(
      "currency-two",
      "Convert 100 EUR to GBP and 50 CHF to JPY.",
      [convertCurrency, getStockPrice, searchWeb],
      [
        { name: "convert_currency", arguments: { amount: 100, from: "EUR", to: "GBP" } },
        { name: "convert_currency", arguments: { amount: 50, from: "CHF", to: "JPY" } },
      ],
    ),
    parallel(
      "weather-and-stock",
      "Get the weather in Berlin, Germany in fahrenheit, and the price of SAP on XETRA.",
      [getWeather, getStockPrice, searchWeb, convertCurrency],
      [
        { name: "get_weather", arguments: { location: { city: "Berlin", country: "DE" }, unit: "fahrenheit" } },
        { name: "get_stock_price", arguments: { symbol: "SAP", exchange: "XETRA" } },
      ],
    ),
    parallel(
      "thermostat-two-rooms",
      "Cool the office to 20 degrees and heat the kitchen to 22 degrees (celsius).",
      [setThermostat, getWeather, addTodos],
      [
        { name: "set_thermostat", arguments: { room: "office", temperature_celsius: 20, mode: "cool" } },
        { name: "set_thermostat", arguments: { room: "kitchen", temperature_celsius: 22, mode: "heat" } },
      ],
    ),
    parallel(
      "search-and-translate",
      "Search the web for 'Lisbon tram 28' and, separately, translate 'good evening' into Italian (it).",
      [searchWeb, translateText, getDirections],
      [
        { name: "search_web", arguments: { query: "Lisbon tram 28" } },
        { name: "translate_text", arguments: { text: "good evening", target_language: "it" } },
      ],
    ),
    structured(
      "json-person",
      "Ada Lovelace was born in 1815 in London. Give her name, birth year and city.",
      "person",
      strictObject({
        name: { type: "string" },
        birth_year: { type: "integer" },
        city: { type: "string" },
      }),
    ),
    structured(
      "json-sentiment",
      "Classify the sentiment of 'The delivery was late and the box was crushed.' and give a confidence from 0 to 1.",
      "sentiment",
      strictObject({
        sentiment: { type: "string", enum: ["positive", "neutral", "negative"] },
        confidence: { type: "number", minimum: 0, maximum: 1 },
      }),
    ),
    structured(
      "json-recipe",
      "List the ingredients of a simple pancake recipe, each with a quantity and a unit.",
      "recipe",
      strictObject({
        title: { type: "string" },
        ingredients: {
          type: "array",
          minItems: 1,
          items: strictObject({
            name: { type: "string" },
            quantity: { type: "number" },
            unit: { type: "string", enum: ["g", "ml", "piece", "tbsp", "tsp", "pinch"] },
          }),
        },
      }),
    ),
    structured(
      "json-address",
      "Parse this address: '10 Downing Street, London SW1A 2AA, United Kingdom'.",
      "address",
      strictObject({
        street: strictObject({ number: { type: "string" }, name: { type: "string" } }),
        city: { type: "string" },
        postcode: { type: "string" },
        country_code: { type: "string", enum: ["GB", "US", "FR", "DE", "OTHER"] },
      }),
    ),
  ],
};

/** The suite new runs use. */
export const TOOL_SUITE = TOOLS_V1;
