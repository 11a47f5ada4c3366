import { Migration } from '@mikro-orm/migrations';

/** Extensions and the immutable unaccent wrapper the full-text index is built with. */
export class Migration20261122022837 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create extension if not exists unaccent;`);
    // unaccent() is only STABLE (it depends on search_path); pin the dictionary so it can be used
    // in index expressions and generated columns
    this.addSql(`create or replace function docqa_unaccent(text) returns text
      language sql immutable parallel safe strict
      as $$ select public.unaccent('public.unaccent'::regdictionary, $1) $$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop function if exists docqa_unaccent(text);`);
  }

}
