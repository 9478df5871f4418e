// Vector similarity for project memory, when the deployment binds both a Vectorize index (MEMORY_VECTORS) and
// Workers AI (AI): each memory's text is embedded with bge-small-en-v1.5 (384 dimensions; create the index with
// `wrangler vectorize create bmad-memory --dimensions=384 --metric=cosine`) and kept in the project's own
// namespace (its Durable Object id), so no query ever reaches another project's vectors.

export const EMBEDDING_MODEL = "@cf/baai/bge-small-en-v1.5";
/** Embeddings are made from at most this much of a memory (the model reads 512 tokens). */
const EMBED_CHARS = 2000;
/** A memory's id (a UUID) in its vector's id, which also names the project: a memory's id is made from its text, so two
 *  projects remembering one sentence share it, and an index whose ids are its own (not each namespace's) let one
 *  project's upsert move the other's vector out of that project's recall (review 26). 36 + 1 + 27 = Vectorize's 64 bytes. */
const MEMORY_ID_CHARS = 36;
const vectorId = (memoryId: string, namespace: string) => `${memoryId}:${namespace.slice(0, 27)}`;

export interface MemoryVectors {
  /** Stores the embeddings of these memories, replacing any with the same ids. */
  upsert(memories: Array<{ id: string; text: string }>): Promise<void>;
  /** Deletes the embeddings of these memories. */
  remove(ids: string[]): Promise<void>;
  /** Ids of the memories nearest the query, nearest first. */
  nearest(query: string, topK: number): Promise<string[]>;
}

/** The project's vectors, or undefined when the deployment binds no Vectorize index or no Workers AI. */
export function memoryVectors(env: { MEMORY_VECTORS?: Vectorize; AI?: Ai }, namespace: string): MemoryVectors | undefined {
  const { MEMORY_VECTORS: index, AI: ai } = env;
  if (!index || !ai) return undefined;
  const embed = async (texts: string[]): Promise<number[][]> => {
    const out = (await ai.run(EMBEDDING_MODEL, { text: texts.map((t) => t.slice(0, EMBED_CHARS)) })) as { data?: number[][] };
    if (!out.data || out.data.length !== texts.length) throw new Error(`${EMBEDDING_MODEL} gave no embeddings`);
    return out.data;
  };
  return {
    async upsert(memories) {
      for (let i = 0; i < memories.length; i += 100) {
        const batch = memories.slice(i, i + 100);
        const values = await embed(batch.map((m) => m.text));
        await index.upsert(batch.map((m, j) => ({ id: vectorId(m.id, namespace), values: values[j]!, namespace })));
      }
    },
    async remove(ids) {
      for (let i = 0; i < ids.length; i += 1000) await index.deleteByIds(ids.slice(i, i + 1000).map((id) => vectorId(id, namespace)));
    },
    async nearest(query, topK) {
      const [vector] = await embed([query]);
      const found = await index.query(vector!, { topK, namespace, returnValues: false, returnMetadata: "none" });
      // Vectors stored before ids named their project are the memory's id alone.
      return found.matches.map((m) => m.id.slice(0, MEMORY_ID_CHARS));
    },
  };
}
