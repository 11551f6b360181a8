#!/usr/bin/env node
// A war-env agent in JavaScript (Node.js, no packages): press once as each turn opens.
//
// Play it:  war-bench --agents "exec:node examples/node_agent.js" --opponents human --rounds 20
// The protocol (JSON lines on stdin/stdout) is in docs/realtime.md; log to stderr, never to stdout.
"use strict";
const readline = require("readline");

let canDraw = null; // the index of the "can_draw" field, from the hello
let pressed = false; // whether this turn's press was sent

function reply(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on("line", (line) => {
  const message = JSON.parse(line);
  switch (message.type) {
    case "hello":
      canDraw = message.observation.fields.indexOf("can_draw");
      reply({ type: "hello", name: "node press-once" });
      break;
    case "reset":
      pressed = false;
      break;
    case "observation": {
      const openTurn = message.observation[canDraw] > 0.5;
      const press = openTurn && !pressed;
      pressed = openTurn && (pressed || press); // a closed turn re-arms the press
      reply({ action: press ? 1 : 0 });
      break;
    }
    case "close":
      process.exit(0);
  }
});
input.on("close", () => process.exit(0));
