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

const CITIES: [string, string, string][] = [
  ["Oslo", "NO", "Norway"],
  ["Madrid", "ES", "Spain"],
  ["Nairobi", "KE", "Kenya"],
  ["Toronto", "CA", "Canada"],
  ["Sydney", "AU", "Australia"],
  ["Seoul", "KR", "South Korea"],
  ["Cairo", "EG", "Egypt"],
  ["Dublin", "IE", "Ireland"],
  ["Mumbai", "IN", "India"],
  ["Santiago", "CL", "Chile"],
  ["Reykjavík", "IS", "Iceland"],
  ["Kraków", "PL", "Poland"],
  ["Hanoi", "VN", "Vietnam"],
  ["Lagos", "NG", "Nigeria"],
];
const CURRENCIES: [number, string, string][] = [
  [20, "GBP", "USD"],
  [350, "JPY", "EUR"],
  [75.5, "CAD", "AUD"],
  [1000, "SEK", "NOK"],
  [42, "USD", "MXN"],
  [9.99, "EUR", "CHF"],
  [250, "AUD", "NZD"],
  [18, "CHF", "GBP"],
  [500, "INR", "USD"],
  [64, "NZD", "JPY"],
  [3, "USD", "KRW"],
  [120, "BRL", "EUR"],
  [7, "EUR", "PLN"],
  [88, "SGD", "HKD"],
];
const STOCKS: [string, "NASDAQ" | "NYSE" | "LSE" | "XETRA"][] = [
  ["AAPL", "NASDAQ"],
  ["IBM", "NYSE"],
  ["VOD", "LSE"],
  ["SIE", "XETRA"],
  ["MSFT", "NASDAQ"],
  ["KO", "NYSE"],
  ["BP", "LSE"],
  ["BMW", "XETRA"],
  ["GOOGL", "NASDAQ"],
  ["DIS", "NYSE"],
  ["HSBA", "LSE"],
  ["ALV", "XETRA"],
];
const ROOMS: ["kitchen" | "bedroom" | "living_room" | "office", number, "heat" | "cool" | "auto", string][] = [
  ["kitchen", 19, "heat", "Heat the kitchen to 19 degrees celsius."],
  ["office", 23, "cool", "Cool the office down to 23 degrees celsius."],
  ["living_room", 21.5, "auto", "Set the living room to 21.5 degrees celsius in auto mode."],
  ["bedroom", 17, "cool", "Cool the bedroom to 17 degrees celsius."],
  ["office", 20, "heat", "Heat the office to 20 degrees celsius."],
  ["kitchen", 24, "auto", "Put the kitchen thermostat on auto at 24 degrees celsius."],
];
const TRANSLATIONS: [string, "fr" | "de" | "es" | "it" | "ja"][] = [
  ["Where is the train station?", "de"],
  ["Thank you very much", "ja"],
  ["The meeting is at noon", "fr"],
  ["I would like a coffee", "it"],
  ["See you tomorrow", "es"],
  ["How much does this cost?", "fr"],
];
const SUMS: [number, number][] = [
  [8, 5],
  [31, 11],
  [64, 36],
  [123, 77],
  [19, 23],
  [250, 250],
  [7, 93],
  [48, 52],
  [301, 99],
  [15, 27],
];
const PEOPLE: [string, number, string][] = [
  ["Alan Turing", 1912, "London"],
  ["Grace Hopper", 1906, "New York"],
  ["Marie Curie", 1867, "Warsaw"],
  ["Albert Einstein", 1879, "Ulm"],
  ["Frida Kahlo", 1907, "Coyoacán"],
  ["Nikola Tesla", 1856, "Smiljan"],
  ["Rosalind Franklin", 1920, "London"],
  ["Carl Sagan", 1934, "Brooklyn"],
];
const REVIEWS = [
  "Fast delivery and the product works perfectly.",
  "The app crashes every time I open it.",
  "It arrived on the day it was promised.",
  "Terrible support, nobody answered my emails.",
  "Great value, I would buy it again.",
  "The manual is missing pages and the parts do not fit.",
  "Decent, nothing special, does the job.",
  "Absolutely love the colour and the fit!",
];
const weatherCall = ([city, country]: [string, string, string], unit: "celsius" | "fahrenheit"): ExpectedCall => ({
  name: "get_weather",
  arguments: { location: { city, country }, unit },
});
const currencyCall = ([amount, from, to]: [number, string, string]): ExpectedCall => ({
  name: "convert_currency",
  arguments: { amount, from, to },
});
const stockCall = ([symbol, exchange]: [string, string]): ExpectedCall => ({
  name: "get_stock_price",
  arguments: { symbol, exchange },
});
const at = <T>(list: readonly T[], i: number): T => list[i % list.length] as T;

/** tools-v2's prompts beyond tools-v1's: the same tools and kinds, other values, generated from the tables above. */
function v2Prompts(): ToolPrompt[] {
  return [...v2OneCallPrompts(), ...v2NoCallPrompts(), ...v2ParallelPrompts(), ...v2StructuredPrompts()];
}

/** tools-v2's one-call prompts: 40 (weather, currency, stock, thermostat, translation). */
function v2OneCallPrompts(): ToolPrompt[] {
  const out: ToolPrompt[] = [];
  CITIES.slice(0, 10).forEach((c, i) => {
    const unit = i % 3 === 0 ? "fahrenheit" : "celsius";
    out.push(
      oneCall(
        `v2-weather-${i}`,
        `What's the weather in ${c[0]}, ${c[2]} right now? Give it in ${unit}.`,
        [getWeather, searchWeb, convertCurrency],
        weatherCall(c, unit),
      ),
    );
  });
  CURRENCIES.slice(0, 10).forEach((c, i) => {
    out.push(
      oneCall(
        `v2-currency-${i}`,
        `Convert ${c[0]} ${c[1]} to ${c[2]}.`,
        [convertCurrency, getStockPrice, searchWeb],
        currencyCall(c),
      ),
    );
  });
  STOCKS.slice(0, 8).forEach((s, i) => {
    out.push(
      oneCall(
        `v2-stock-${i}`,
        `What is ${s[0]} trading at on the ${s[1]}?`,
        [getStockPrice, searchWeb, convertCurrency],
        stockCall(s),
      ),
    );
  });
  ROOMS.forEach(([room, temperature_celsius, mode, text], i) => {
    out.push(
      oneCall(`v2-thermostat-${i}`, text, [setThermostat, getWeather, addTodos], {
        name: "set_thermostat",
        arguments: { room, temperature_celsius, mode },
      }),
    );
  });
  TRANSLATIONS.forEach(([text, target_language], i) => {
    out.push(
      oneCall(
        `v2-translate-${i}`,
        `Use the translator to put '${text}' into ${{ fr: "French", de: "German", es: "Spanish", it: "Italian", ja: "Japanese" }[target_language]} (${target_language}).`,
        [translateText, searchWeb, sendEmail],
        { name: "translate_text", arguments: { text, target_language } },
      ),
    );
  });
  return out;
}

/** tools-v2's no-call prompts: 20 (sums, and words that need no tool). */
function v2NoCallPrompts(): ToolPrompt[] {
  const out: ToolPrompt[] = [];
  SUMS.forEach(([a, b], i) => {
    out.push(
      noCall(`v2-none-sum-${i}`, `What is ${a} plus ${b}? Answer with the number only.`, [
        convertCurrency,
        getStockPrice,
        searchWeb,
      ]),
    );
  });
  [
    "Write a two-line poem about the sea.",
    "Say good morning in a cheerful way.",
    "In one sentence, what is a stock exchange?",
    "In one sentence, what does a calendar app do?",
    "Rewrite 'hello world' in capital letters.",
    "Spell the word 'weather' backwards.",
    "Is 17 a prime number? Answer yes or no.",
    "Name the colours of a rainbow, in order.",
    "Thanks, that's all for now!",
    "In one sentence, why is the sky blue?",
  ].forEach((text, i) => {
    out.push(
      noCall(`v2-none-words-${i}`, text, [
        at([getWeather, sendEmail, setThermostat, getStockPrice, createEvent], i),
        searchWeb,
        translateText,
      ]),
    );
  });
  return out;
}

/** tools-v2's parallel prompts: 20 (two weathers, two conversions, a weather and a stock price). */
function v2ParallelPrompts(): ToolPrompt[] {
  const out: ToolPrompt[] = [];
  for (let i = 0; i < 7; i++) {
    const a = at(CITIES, i + 3);
    const b = at(CITIES, i + 7);
    out.push(
      parallel(
        `v2-weather-two-${i}`,
        `What's the weather in ${a[0]}, ${a[2]} and in ${b[0]}, ${b[2]}? Use celsius for both.`,
        [getWeather, searchWeb, convertCurrency],
        [weatherCall(a, "celsius"), weatherCall(b, "celsius")],
      ),
    );
  }
  for (let i = 0; i < 7; i++) {
    const a = at(CURRENCIES, i + 7);
    const b = at(CURRENCIES, i + 2);
    out.push(
      parallel(
        `v2-currency-two-${i}`,
        `Convert ${a[0]} ${a[1]} to ${a[2]} and ${b[0]} ${b[1]} to ${b[2]}.`,
        [convertCurrency, getStockPrice, searchWeb],
        [currencyCall(a), currencyCall(b)],
      ),
    );
  }
  for (let i = 0; i < 6; i++) {
    const c = at(CITIES, i + 10);
    const s = at(STOCKS, i + 6);
    out.push(
      parallel(
        `v2-weather-stock-${i}`,
        `Get the weather in ${c[0]}, ${c[2]} in fahrenheit, and the price of ${s[0]} on the ${s[1]}.`,
        [getWeather, getStockPrice, searchWeb, convertCurrency],
        [weatherCall(c, "fahrenheit"), stockCall(s)],
      ),
    );
  }
  return out;
}

/** tools-v2's structured prompts: 16 (a person, a review's sentiment). */
function v2StructuredPrompts(): ToolPrompt[] {
  const out: ToolPrompt[] = [];
  PEOPLE.forEach(([name, year, city], i) => {
    out.push(
      structured(
        `v2-json-person-${i}`,
        `${name} was born in ${year} in ${city}. Give the name, birth year and city.`,
        "person",
        strictObject({ name: { type: "string" }, birth_year: { type: "integer" }, city: { type: "string" } }),
      ),
    );
  });
  REVIEWS.forEach((review, i) => {
    out.push(
      structured(
        `v2-json-sentiment-${i}`,
        `Classify the sentiment of '${review}' and give a confidence from 0 to 1.`,
        "sentiment",
        strictObject({
          sentiment: { type: "string", enum: ["positive", "neutral", "negative"] },
          confidence: { type: "number", minimum: 0, maximum: 1 },
        }),
      ),
    );
  });
  return out;
}

/**
 * Version 2: 120 prompts, tools-v1's 24 and 96 more of the same kinds and tools with other values: 50
 * one-call, 25 no-call, 25 parallel, 20 structured. The verdict's unit is the prompt, and 24 prompts
 * cannot show a route that fails one prompt in ten more than its reference (docs/methodology.md#tool-calls).
 */
export const TOOLS_V2: ToolSuite = { id: "tools-v2", prompts: [...TOOLS_V1.prompts, ...v2Prompts()] };

/** The suite new runs use. */
export const TOOL_SUITE = TOOLS_V2;

/** Every published suite, by id: a run document names the suite it ran, and is judged on it. */
export const TOOL_SUITES: ReadonlyMap<string, ToolSuite> = new Map([TOOLS_V1, TOOLS_V2].map((s) => [s.id, s]));
