/**
 * A host keeps a resource, or some of its fields, away from AI agents in the declaration (`mcp`), and
 * REST keeps serving them: the tools neither show, write, filter nor sort on a hidden field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSwitchboard, defineResource, type Switchboard } from '../../src/index.js';
import { type NodeServer, serve } from '../../src/node/index.js';
import { postMcp, toolCall } from '../support/mcp.js';

const ADMIN = 'sbk_mcp_hiding_admin_key_0123456789abcdefg';

const notes = defineResource({
  name: 'care-note',
  idPrefix: 'cn',
  description: "A note on a client's care.",
  fields: {
    clientId: z.string(),
    text: z.string().max(500),
    diagnosis: z.string().max(200).optional(),
  },
  relations: { clientId: 'client' },
  owner: 'clientId',
  filters: ['diagnosis'],
  search: { about: 'diagnosis' },
  sort: ['diagnosis'],
  scopes: { read: 'care.notes.read', write: 'care.notes.write' },
  mcp: { hide: ['diagnosis'] },
});

const audits = defineResource({
  name: 'audit-entry',
  idPrefix: 'aud',
  fields: { what: z.string().max(200) },
  changes: false,
  scopes: { read: 'ops.audit.read', write: 'ops.audit.write' },
  mcp: false,
});

type Call = { result?: { isError?: boolean; structuredContent?: Record<string, unknown> } };

describe('hiding a resource or a field from MCP in its declaration', () => {
  let switchboard: Switchboard;
  let server: NodeServer;
  let clientId = '';
  let noteId = '';

  beforeAll(async () => {
    switchboard = createSwitchboard({ oauth: { adminApiKey: ADMIN }, resources: [notes, audits] });
    server = await serve({ fetch: switchboard.fetch, port: 0, shutdownSignals: [] });
    clientId = (await switchboard.domain.clients.create({ name: 'Ada', email: 'ada@example.com' })).id;
    noteId = (
      await switchboard.domain.of(notes).create({ clientId, text: 'Prefers mornings', diagnosis: 'x' })
    ).id;
  });
  afterAll(async () => {
    await server?.close();
    await switchboard?.close();
  });

  const mcp = async (body: unknown) =>
    (await (await postMcp(`${server.url}/mcp`, ADMIN, body)).json()) as Call & {
      result: { tools?: { name: string; inputSchema: { properties: object }; outputSchema: object }[] };
    };

  it('serves no tool of a resource declared `mcp: false`, and no hidden field in any schema', async () => {
    const { tools } = (await mcp({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).result;
    const names = tools!.map((t) => t.name);
    expect(names.filter((n) => n.includes('audit'))).toEqual([]);
    expect(names).toEqual(
      expect.arrayContaining(['list_care_notes', 'create_care_note', 'update_care_note']),
    );
    for (const tool of tools!.filter((t) => t.name.includes('care_note'))) {
      expect(JSON.stringify(tool.inputSchema)).not.toMatch(/diagnosis|"about"/);
      expect(JSON.stringify(tool.outputSchema)).not.toContain('diagnosis');
    }
  });

  it('shows records without the field, refuses it when sent, and REST still serves it', async () => {
    const got = await mcp(toolCall('get_care_note', { id: noteId }));
    expect(got.result?.structuredContent).toMatchObject({ id: noteId, text: 'Prefers mornings' });
    expect(got.result?.structuredContent).not.toHaveProperty('diagnosis');
    const listed = await mcp(toolCall('list_care_notes', {}));
    expect(JSON.stringify(listed.result?.structuredContent)).not.toContain('diagnosis');

    for (const call of [
      toolCall('create_care_note', { clientId, text: 'Hi', diagnosis: 'y' }),
      toolCall('update_care_note', { id: noteId, diagnosis: 'y' }),
    ]) {
      const refused = await mcp(call);
      expect(refused.result?.isError).toBe(true);
      expect(JSON.stringify(refused.result)).toMatch(/validation_failed: diagnosis: not available to agents/);
    }
    const sorted = await mcp(toolCall('list_care_notes', { sort: 'diagnosis' }));
    expect(sorted.result?.isError).toBe(true);
    expect((await switchboard.domain.of(notes).get(noteId)).diagnosis).toBe('x');

    const rest = await fetch(`${server.url}/api/v1/care-notes/${noteId}`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(((await rest.json()) as { diagnosis: string }).diagnosis).toBe('x');
  });

  it('refuses at start a hidden field that is not one, or that a create must send', () => {
    expect(() =>
      defineResource({
        name: 'thing',
        idPrefix: 'th',
        fields: { a: z.string() },
        scopes: { read: 'x.things.read', write: 'x.things.write' },
        mcp: { hide: ['b' as 'a'] },
      }),
    ).toThrow(/mcp.hide names "b", which is not a field/);
    const required = defineResource({
      name: 'thing',
      idPrefix: 'th',
      fields: { a: z.string() },
      scopes: { read: 'x.things.read', write: 'x.things.write' },
      mcp: { hide: ['a'] },
    });
    expect(() => createSwitchboard({ resources: [required] })).toThrow(/"a", which a create must send/);
  });
});
