import { analyseText, cjkVectorLiteral, configForLanguage, detectLanguage } from '../../../src/search/analysis';

describe('CJK bigrams', () => {
  it('cuts Han, Hiragana, Katakana and Hangul runs into overlapping bigrams, a run of one into itself', () => {
    expect(analyseText('保修期是多久').bigrams).toEqual(['保修', '修期', '期是', '是多', '多久']);
    expect(analyseText('カメラ').bigrams).toEqual(['カメ', 'メラ']);
    expect(analyseText('보증 기간').bigrams).toEqual(['보증', '기간']);
    expect(analyseText('第 章').bigrams).toEqual(['第', '章']);
  });

  it('leaves the rest to the text-search configuration, with the CJK runs blanked out', () => {
    const { plain, bigrams } = analyseText('本系统需要PostgreSQL 15或更高版本。');
    expect(plain.replace(/\s+/g, ' ').trim()).toBe('PostgreSQL Postgre SQL 15 。'); // identifiers are followed by their parts
    expect(bigrams).toEqual(['本系', '系统', '统需', '需要', '或更', '更高', '高版', '版本']);
    expect(analyseText('plain English, café').bigrams).toEqual([]);
  });

  it('folds half-width katakana (NFKC)', () => {
    expect(analyseText('ｶﾒﾗ').bigrams).toEqual(analyseText('カメラ').bigrams);
  });

  it('writes a tsvector literal with positions in text order, repeated bigrams keeping every position', () => {
    expect(cjkVectorLiteral(['保修', '修期', '保修'])).toBe("'保修':1,3 '修期':2");
    expect(cjkVectorLiteral([])).toBeNull();
  });
});

describe('language detection', () => {
  it.each([
    ['de', 'Die Garantie gilt zwei Jahre ab dem Kaufdatum. Für eine Rückerstattung benötigen Sie den Kassenbon.'],
    ['fr', 'La garantie est valable deux ans. Pour un remboursement, il faut le ticket de caisse.'],
    ['en', 'The warranty lasts two years from purchase. A refund needs the receipt.'],
    ['es', 'La garantía es válida durante dos años a partir de la fecha de compra.'],
    ['zh', '保修期为自购买之日起两年。退款需要提供收据。'],
    ['zh', 'PostgreSQL 15 的安装步骤'],
    ['ja', 'この製品の保証期間は購入日から二年間です。'],
    ['ko', '보증 기간은 구매일로부터 2년입니다.'],
  ])('%s: %s', (lang, text) => {
    expect(detectLanguage(text)).toBe(lang);
  });

  it('votes per sentence, so option names and URLs do not sway a document (nor a vote for a script it lacks)', () => {
    const manPage = Array.from(
      { length: 10 },
      (_, i) =>
        `ip route add 10.${i}.0.0/16 via 192.168.1.${i} dev eth${i} proto static metric ${i}\nThe route is added to the main table unless another table is given with the table option.`,
    ).join('\n');
    expect(detectLanguage(manPage)).toBe('en');
  });

  it('says nothing for text too short to tell', () => {
    expect(detectLanguage('  ')).toBeNull();
    expect(detectLanguage('42')).toBeNull();
  });

  it('maps languages to PostgreSQL configurations, simple where none exists, the fallback when unknown', () => {
    expect(configForLanguage('de', 'english')).toBe('german');
    expect(configForLanguage('zh', 'english')).toBe('english'); // its Latin words; the Han text is bigrams
    expect(configForLanguage('pl', 'english')).toBe('simple');
    expect(configForLanguage(null, 'english')).toBe('english');
  });
});
