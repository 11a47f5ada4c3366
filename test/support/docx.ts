import JSZip from 'jszip';

/** A paragraph of a test DOCX: text, optionally a heading, optionally followed by a page break. */
export interface DocxParagraph {
  text: string;
  heading?: 1 | 2;
  /** A paragraph style by its id, named in styles.xml as Word names it (`TOC1` is "toc 1", `Title` "Title"). */
  style?: keyof typeof STYLE_NAMES;
  pageBreakAfter?: boolean;
}

/** Word's names of the styles a test paragraph may take (styles.xml). */
const STYLE_NAMES = { TOC1: 'toc 1', TOC2: 'toc 2', TOCHeading: 'TOC Heading', Contents1: 'Contents 1', Title: 'Title' };

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Builds a real (minimal) .docx with JSZip, the zip library mammoth itself uses. */
export async function makeDocx(paragraphs: DocxParagraph[]): Promise<Buffer> {
  const body = paragraphs
    .map((p) => {
      const id = p.heading ? `Heading${p.heading}` : p.style;
      const style = id ? `<w:pPr><w:pStyle w:val="${id}"/></w:pPr>` : '';
      const brk = p.pageBreakAfter ? '<w:r><w:br w:type="page"/></w:r>' : '';
      return `<w:p>${style}<w:r><w:t xml:space="preserve">${esc(p.text)}</w:t></w:r>${brk}</w:p>`;
    })
    .join('');
  const zip = new JSZip();
  zip.file(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
      '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
      '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>' +
      '</Types>',
  );
  zip.file(
    '_rels/.rels',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
      '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>' +
      '</Relationships>',
  );
  zip.file(
    'word/document.xml',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
      '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">' +
      `<w:body>${body}</w:body></w:document>`,
  );
  zip.file(
    'word/_rels/document.xml.rels',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
      '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>' +
      '</Relationships>',
  );
  zip.file(
    'word/styles.xml',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
      '<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">' +
      Object.entries({ ...STYLE_NAMES, Heading1: 'heading 1', Heading2: 'heading 2' })
        .map(([id, name]) => `<w:style w:type="paragraph" w:styleId="${id}"><w:name w:val="${name}"/></w:style>`)
        .join('') +
      '</w:styles>',
  );
  return zip.generateAsync({ type: 'nodebuffer' });
}
