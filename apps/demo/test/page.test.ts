import { describe, expect, it } from "vitest";
import { pageHtml } from "../src/page.js";

/** The text of every inline `<script>` element. */
function inlineScripts(html: string): string[] {
  return [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((match) => match[1] ?? "");
}

describe("pageHtml", () => {
  it("is a complete HTML document with a chat form", () => {
    expect(typeof pageHtml).toBe("string");
    expect(pageHtml.startsWith("<!doctype html>")).toBe(true);
    expect(pageHtml).toContain('<form id="chat-form"');
    expect(pageHtml).toContain('<input id="prompt"');
    expect(pageHtml).toContain('type="submit"');
    expect(pageHtml).toContain('id="clear-runs"');
    expect(pageHtml).toContain("Background runs");
  });

  it("references the events socket, the chat socket and the other routes", () => {
    expect(pageHtml).toContain('"/agents/assistant/"');
    expect(pageHtml).toContain('base + "/chat"');
    expect(pageHtml).toContain("var EVENTS_PATH = base;");
    expect(pageHtml).toContain("agentToolCursors");
    expect(pageHtml).toContain('"/messages"');
    expect(pageHtml).toContain('"/clear"');
    expect(pageHtml).toContain('"/cancel/"');
    expect(pageHtml).toContain('"/sub/"');
    expect(pageHtml).toContain('type: "send"');
  });

  it("loads no external assets", () => {
    expect(pageHtml).not.toMatch(/<script[^>]+src=/);
    expect(pageHtml).not.toMatch(/<link[^>]+href=/);
    expect(pageHtml).not.toMatch(/https?:\/\//);
  });

  it("has one inline script that parses", () => {
    const scripts = inlineScripts(pageHtml);
    expect(scripts).toHaveLength(1);
    const [script = ""] = scripts;
    expect(script.length).toBeGreaterThan(1000);
    let syntaxError: unknown = null;
    try {
      // Compiles the script (syntax check only); the function is never called.
      new Function(script);
    } catch (error) {
      syntaxError = error;
    }
    expect(syntaxError).toBeNull();
  });
});
