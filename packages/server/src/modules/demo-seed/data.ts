/**
 * What the demo installation holds (`npm run cli -- seed:demo`): a small CAD vendor, "Acme", with
 * its catalogue, one reseller and customers across the five languages of the interface. The
 * accounts live under example.com (RFC 2606), which no mail reaches.
 */
import type { Locale } from '@lm/contract';
import type { FeatureInput } from '@lm/contract/feature';
import type { LicensePolicyInput } from '@lm/contract/license-policy';
import type { ProductInput } from '@lm/contract/product';

type Texts = Record<Locale, string>;

export interface DemoFeature extends Omit<FeatureInput, 'localizedDescription'> {
  localizedDescription: Texts;
}

export const DEMO_FEATURES: DemoFeature[] = [
  {
    name: 'cad:modeling',
    localizedDescription: { en: '3D modelling and drawings', de: '3D-Modellierung und Zeichnungen', es: 'Modelado 3D y planos', fr: 'Modélisation 3D et plans', it: 'Modellazione 3D e disegni' },
  },
  {
    name: 'cad:export-pdf',
    localizedDescription: { en: 'Export to PDF', de: 'Export als PDF', es: 'Exportar a PDF', fr: 'Export en PDF', it: 'Esportazione in PDF' },
  },
  {
    name: 'cad:export-dxf',
    localizedDescription: { en: 'Export to DXF and DWG', de: 'Export als DXF und DWG', es: 'Exportar a DXF y DWG', fr: 'Export en DXF et DWG', it: 'Esportazione in DXF e DWG' },
  },
  {
    name: 'render:gpu',
    localizedDescription: { en: 'GPU rendering', de: 'Rendern auf der Grafikkarte', es: 'Renderizado por GPU', fr: 'Rendu sur GPU', it: 'Rendering su GPU' },
  },
  {
    name: 'render:network',
    localizedDescription: { en: 'Rendering on several computers', de: 'Rendern auf mehreren Rechnern', es: 'Renderizado en varios equipos', fr: 'Rendu sur plusieurs ordinateurs', it: 'Rendering su più computer' },
  },
  {
    name: 'cloud:sync',
    localizedDescription: { en: 'Projects synchronised between computers', de: 'Projekte zwischen Rechnern abgleichen', es: 'Proyectos sincronizados entre equipos', fr: 'Projets synchronisés entre ordinateurs', it: 'Progetti sincronizzati tra computer' },
  },
  {
    name: 'bundle:pro',
    hidden: true,
    expandToFeatures: ['cad:modeling', 'cad:export-pdf', 'cad:export-dxf', 'render:gpu', 'cloud:sync'],
    localizedDescription: { en: 'Everything of the Pro edition', de: 'Alles der Pro-Edition', es: 'Todo lo de la edición Pro', fr: "Tout de l'édition Pro", it: "Tutto dell'edizione Pro" },
    notes: 'A bundle: products list it instead of its five features, license files carry the five.',
  },
];

export const DEMO_POLICY: LicensePolicyInput = {
  name: 'Perpetual, two years of updates',
  type: 'PERPETUAL',
  publicName: {
    en: 'Perpetual license with two years of updates',
    de: 'Dauerlizenz mit zwei Jahren Updates',
    es: 'Licencia perpetua con dos años de actualizaciones',
    fr: 'Licence perpétuelle avec deux ans de mises à jour',
    it: 'Licenza perpetua con due anni di aggiornamenti',
  },
  licenseMaxValidDays: 365,
  refetchIntervalSeconds: 7 * 86_400,
  refetchBeforeExpirySeconds: 30 * 86_400,
  maxDifferentMachinesCount: 2,
  maxDifferentMachinesIntervalHours: 30 * 24,
  freeUpdatesPeriodDays: 732,
  notes: 'For the current major version, sold from its release on.',
};

/** The policy a product takes by default, by the built-in names (0001_foundation.ts) or the demo's own. */
export type PolicyName = 'SINGLE_HOST_PERPETUAL' | 'SINGLE_HOST_INDEFINITE' | 'FLOATING_DEFAULT' | typeof DEMO_POLICY.name;

export interface DemoProduct extends Omit<ProductInput, 'defaultLicensePolicyId' | 'releaseDate'> {
  key: 'cad4' | 'cad5' | 'cad6' | 'viewer' | 'render';
  policy: PolicyName;
  /** Months before today that the version came out. */
  releasedMonthsAgo: number;
}

const download = (slug: string) => [
  { type: 'win' as const, url: `https://downloads.example.com/${slug}/setup.exe` },
  { type: 'mac' as const, url: `https://downloads.example.com/${slug}/installer.dmg` },
];

export const DEMO_PRODUCTS: DemoProduct[] = [
  { key: 'cad4', name: 'Acme CAD', version: '4', active: false, releasedMonthsAgo: 40, policy: 'SINGLE_HOST_PERPETUAL', features: ['cad:modeling', 'cad:export-pdf'], notes: 'No longer sold.' },
  {
    key: 'cad5',
    name: 'Acme CAD',
    version: '5',
    releasedMonthsAgo: 20,
    policy: 'SINGLE_HOST_PERPETUAL',
    trialDays: 30,
    repeatTrialAfterMonths: 12,
    features: ['cad:modeling', 'cad:export-pdf', 'cad:export-dxf'],
    downloadLinks: download('acme-cad-5'),
  },
  {
    key: 'cad6',
    name: 'Acme CAD',
    version: '6',
    releasedMonthsAgo: 2,
    policy: DEMO_POLICY.name,
    trialDays: 30,
    repeatTrialAfterMonths: 12,
    features: ['cad:modeling', 'cad:export-pdf', 'cad:export-dxf', 'cloud:sync'],
    downloadLinks: download('acme-cad-6'),
  },
  {
    key: 'viewer',
    name: 'Acme Viewer',
    version: '2.1',
    releasedMonthsAgo: 16,
    policy: 'SINGLE_HOST_INDEFINITE',
    trialDays: 14,
    repeatTrialAfterMonths: 6,
    features: ['cad:export-pdf'],
    downloadLinks: download('acme-viewer'),
  },
  {
    key: 'render',
    name: 'Acme Render Server',
    version: '3',
    releasedMonthsAgo: 18,
    policy: 'FLOATING_DEFAULT',
    features: ['bundle:pro', 'render:network'],
    downloadLinks: [{ type: 'offline', url: 'https://downloads.example.com/acme-render-server/offline-activation.pdf' }],
  },
];

export interface DemoPerson {
  email: string;
  firstName: string;
  lastName: string;
  company: string | null;
  city: string;
  country: string;
  locale: Locale;
}

const person = (email: string, firstName: string, lastName: string, company: string | null, city: string, country: string, locale: Locale): DemoPerson => ({
  email: `${email}@example.com`,
  firstName,
  lastName,
  company,
  city,
  country,
  locale,
});

export const DEMO_DISTRIBUTOR = person('distributor', 'Lena', 'Hoffmann', 'Northwind Software Distribution GmbH', 'München', 'DE', 'de');

/** In the order they become customers, one or two a month. */
export const DEMO_CUSTOMERS: DemoPerson[] = [
  person('juergen.mueller', 'Jürgen', 'Müller', 'Müller Maschinenbau GmbH', 'Stuttgart', 'DE', 'de'),
  person('emily.clarke', 'Emily', 'Clarke', 'Clarke & Sons Engineering', 'Leeds', 'GB', 'en'),
  person('anais.dubois', 'Anaïs', 'Dubois', 'Atelier Dubois', 'Lyon', 'FR', 'fr'),
  person('giulia.rossi', 'Giulia', 'Rossi', 'Studio Rossi Architetti', 'Milano', 'IT', 'it'),
  person('jose.garcia', 'José', 'García', 'García Arquitectos S.L.', 'Valencia', 'ES', 'es'),
  person('soren.orsted', 'Søren', 'Ørsted', 'Ørsted Design ApS', 'Aarhus', 'DK', 'en'),
  person('zoe.brandt', 'Zoë', 'Brandt', null, 'Hamburg', 'DE', 'de'),
  person('francois.lefevre', 'François', 'Lefèvre', 'Lefèvre Ingénierie', 'Nantes', 'FR', 'fr'),
  person('marco.bianchi', 'Marco', 'Bianchi', 'Bianchi Costruzioni', 'Torino', 'IT', 'it'),
  person('lucia.fernandez', 'Lucía', 'Fernández', 'Estudio Fernández', 'Sevilla', 'ES', 'es'),
  person('oliver.hughes', 'Oliver', 'Hughes', 'Hughes Fabrication Ltd', 'Bristol', 'GB', 'en'),
  person('katrin.weiss', 'Katrin', 'Weiß', 'Weiß Holzbau', 'Freiburg', 'DE', 'de'),
  person('helene.martin', 'Hélène', 'Martin', null, 'Bordeaux', 'FR', 'fr'),
  person('alessandro.conti', 'Alessandro', 'Conti', 'Conti Meccanica', 'Bologna', 'IT', 'it'),
  person('alvaro.ruiz', 'Álvaro', 'Ruiz', 'Ruiz Ingeniería', 'Bilbao', 'ES', 'es'),
  person('sarah.thompson', 'Sarah', 'Thompson', 'Thompson Product Design', 'Manchester', 'GB', 'en'),
  person('stefan.schroeder', 'Stefan', 'Schröder', 'Schröder Anlagenbau', 'Bremen', 'DE', 'de'),
  person('camille.roux', 'Camille', 'Roux', 'Roux & Associés', 'Lille', 'FR', 'fr'),
  person('chiara.greco', 'Chiara', 'Greco', null, 'Napoli', 'IT', 'it'),
  person('pablo.navarro', 'Pablo', 'Navarro', 'Navarro Diseño Industrial', 'Zaragoza', 'ES', 'es'),
  person('daniel.wright', 'Daniel', 'Wright', 'Wright Robotics', 'Cambridge', 'GB', 'en'),
  person('bjorn.lindqvist', 'Björn', 'Lindqvist', 'Lindqvist Marin AB', 'Göteborg', 'SE', 'en'),
  person('elif.yilmaz', 'Elif', 'Yılmaz', 'Yılmaz Mimarlık', 'İstanbul', 'TR', 'en'),
  person('anna.nowak', 'Anna', 'Nowak', 'Nowak Engineering', 'Berlin', 'DE', 'de'),
];
