// The `lucene` package ships no types; its AST is read defensively in query.ts.
declare module 'lucene' {
  const lucene: { parse(query: string): unknown };
  export default lucene;
}
