import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 36, a million chunks: a chunk's full-text vector stays in its row (storage MAIN: compressed
 * there if need be, moved out only when nothing else can be). By default (EXTENDED) a chunk of
 * ~1,000 characters went over the 2 KB TOAST threshold and its tsv, the largest value, went to the
 * TOAST table: every candidate a search scores, and every chunk a tier walks, then cost a TOAST index
 * probe and a page besides its row, random reads that dominate a cold search at 1,000,000 chunks.
 * Now the text and context go out first (read only for the few chunks a search returns). Rows
 * written from now on are stored so; existing rows move when they are written again (re-indexing).
 */
export class Migration20261128054659 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "chunks" alter column "tsv" set storage main;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "chunks" alter column "tsv" set storage extended;`);
  }

}
