import sharp from 'sharp';
import { composeAamva, parseAamva } from '../lib/documents/aamva';
import { pdf417Svg, readPdf417 } from '../lib/documents/barcode';
const text = composeAamva({ surname: 'ERIKSSON', givenNames: 'ANNA MARIA', documentNumber: 'D1234567', birthDate: '1974-08-12', expiryDate: '2031-04-15', issuingCountry: 'USA', sex: 'F' });
const png = await sharp(Buffer.from(await pdf417Svg(text))).png().toBuffer();
const r = await readPdf417(png);
console.log(r[0] === text, parseAamva(r[0]));
process.exit(0);
