// Starts `arbiter lsp` for rule files (.rules). Highlighting comes from the
// TextMate grammar in syntaxes/; everything else from the server.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

// `.rules` is also udev's and Snort's: such a file is handed back to plain
// text when its first line that is neither blank nor a comment is theirs
// (as `arbiter lsp` tells them: src/lsp/detect.rs).
function foreign(text) {
  const line = text.split("\n").map((l) => l.trim()).find((l) => l !== "" && !l.startsWith("#"));
  if (!line) return false;
  if (/^[A-Z][A-Z0-9_]*(\{[^}]*\})?\s*([=!+:-]?=)/.test(line)) return true;
  const [first, second] = line.split(/\s+/);
  const actions = ["alert", "log", "pass", "drop", "reject", "sdrop", "activate", "dynamic"];
  const protocols = ["tcp", "udp", "icmp", "ip", "http", "tls", "dns", "smb", "ftp", "any"];
  return (actions.includes(first) && protocols.includes(second)) ||
    (["var", "ipvar", "portvar"].includes(first) && /^[A-Z_]+$/.test(second || ""));
}

function leaveAlone(doc) {
  if (doc.languageId === "arbiter" && foreign(doc.getText())) {
    vscode.languages.setTextDocumentLanguage(doc, "plaintext");
  }
}

function activate(context) {
  vscode.workspace.textDocuments.forEach(leaveAlone);
  context.subscriptions.push(vscode.workspace.onDidOpenTextDocument(leaveAlone));
  const command = vscode.workspace.getConfiguration("arbiter").get("path") || "arbiter";
  const server = { command, args: ["lsp"] };
  client = new LanguageClient(
    "arbiter",
    "arbiter",
    { run: server, debug: server },
    { documentSelector: [{ scheme: "file", language: "arbiter" }, { scheme: "untitled", language: "arbiter" }] }
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
