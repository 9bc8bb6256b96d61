// Drives `ask-user mcp` with the official MCP TypeScript SDKs and prints what it saw as one JSON
// document: what a model would receive from each call (`content` and `structuredContent`), the
// forms the server sent, and the progress notifications.
//
// Usage: node client.mjs SDK SCENARIO SERVER_COMMAND [ARGS...]
//   SDK: v1 (@modelcontextprotocol/sdk 1.x, protocol 2025-11-25, the server sends forms as
//        requests) or v2 (@modelcontextprotocol/client 2.x pinned to 2026-07-28, forms travel in
//        input_required results and the client retries the call).
//   SCENARIO: rounds (forms answered partially, then completely; declined; left incomplete until
//             the pending file takes over), pending (no elicitation), slow (a person who answers
//             at the first progress notification that arrives after the request timeout has
//             passed, with the timeout reset on progress) or slow-no-reset (the same without the
//             reset: the person answers only once the call has failed, which it must, by timing
//             out). The person acts on these events, never after a fixed delay.
// The Rust test `tests/it/mcp_node.rs` asserts on the output.

const [sdk, scenario, command, ...args] = process.argv.slice(2);

const DATABASE = {
  question: "Which database should we use?",
  header: "Database",
  options: [
    { label: "PostgreSQL (Recommended)", description: "Battle-tested relational DB" },
    { label: "SQLite", description: "File-based, zero configuration" },
  ],
};
const NAME = { question: "What should the project be called?", header: "Name" };

// The calls of the rounds scenario, and what the person does in each form they bring.
const CALLS = ["rounds", "declined", "bounded"];
const PLAN = [
  ["rounds", "accept", { q1: "SQLite" }],
  ["rounds", "accept", { q2: "Falcon" }],
  ["declined", "decline", undefined],
  ["bounded", "accept", { q1_other: "MariaDB" }],
  ["bounded", "accept", {}],
  ["bounded", "accept", {}],
];

// The client's request timeout: well above the server's progress interval (2 s), so that each
// notification comes long before the timeout it resets runs out.
const TIMEOUT_MS = 5000;

const seen = { sdk, calls: {}, elicitations: [], progress: 0, timeoutMs: TIMEOUT_MS };

// Settled when the slow person answers: at the first progress notification once the timeout
// has passed (slow), or once the call has failed (slow-no-reset).
let answerNow;
const answered = new Promise((resolve) => { answerNow = resolve; });
let started = 0;

async function connect() {
  const env = { ...process.env };
  const capabilities = scenario === "pending" ? {} : { elicitation: { form: {} } };
  const info = { name: "ask-user-test", version: "1.0.0" };
  if (sdk === "v1") {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    const { ElicitRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
    const client = new Client(info, { capabilities });
    if (scenario !== "pending") client.setRequestHandler(ElicitRequestSchema, onElicit);
    const transport = new StdioClientTransport({ command, args, env, stderr: "inherit" });
    transport.setProtocolVersion = (version) => { seen.protocolVersion = version; };
    await client.connect(transport);
    return client;
  }
  const { Client } = await import("@modelcontextprotocol/client");
  const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
  const client = new Client(info, {
    capabilities,
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  if (scenario !== "pending") client.setRequestHandler("elicitation/create", onElicit);
  await client.connect(new StdioClientTransport({ command, args, env, stderr: "inherit" }));
  seen.protocolVersion = client.getNegotiatedProtocolVersion();
  return client;
}

let current = null;
const plan = [...PLAN];

async function onElicit(request) {
  seen.elicitations.push({ call: current, params: request.params });
  if (scenario.startsWith("slow")) {
    await answered;
    return { action: "accept", content: { q1: "SQLite" } };
  }
  const [call, action, content] = plan.shift();
  if (call !== current) throw new Error(`the plan expected a form for ${call}, not ${current}`);
  // A person takes a moment to decline; a decline within 300 ms of the form is a client that
  // cannot ask, and the server goes on to its next presenter.
  if (action !== "accept") await new Promise((resolve) => setTimeout(resolve, 600));
  return content === undefined ? { action } : { action, content };
}

// What a model would be handed: the text content and the structured content.
function received(result) {
  return {
    isError: result.isError ?? false,
    text: result.content?.map((block) => block.text).join("\n"),
    structuredContent: result.structuredContent,
  };
}

async function main() {
  const client = await connect();
  seen.tools = (await client.listTools()).tools.map((tool) => tool.name);
  const questions = { rounds: [DATABASE, NAME], declined: [DATABASE], bounded: [DATABASE, NAME] };
  if (scenario === "rounds") {
    for (const name of CALLS) {
      current = name;
      const result = await client.callTool({ name: "ask_user", arguments: { questions: questions[name] } });
      seen.calls[name] = received(result);
    }
  } else if (scenario === "pending") {
    current = "pending";
    const result = await client.callTool({ name: "ask_user", arguments: { questions: [DATABASE] } });
    seen.calls.pending = received(result);
  } else {
    current = "slow";
    const options = {
      timeout: TIMEOUT_MS,
      resetTimeoutOnProgress: scenario === "slow",
      onprogress: () => {
        seen.progress += 1;
        if (scenario === "slow" && Date.now() - started > TIMEOUT_MS) answerNow();
      },
    };
    started = Date.now();
    try {
      const result = await client.callTool(
        { name: "ask_user", arguments: { questions: [DATABASE] } }, undefined, options);
      seen.calls.slow = received(result);
    } catch (error) {
      seen.calls.slow = { error: String(error?.message ?? error) };
    }
    seen.elapsedMs = Date.now() - started;
    answerNow();
  }
  await client.close();
  process.stdout.write(JSON.stringify(seen) + "\n");
}

main().catch((error) => {
  process.stderr.write(`the client failed: ${error?.stack ?? error}\n`);
  process.exit(1);
});
