import { FeaturePending } from '../../components/FeaturePending.tsx';

export default function MyLicensesPage() {
  return <FeaturePending titleKey="pages.myLicenses" />;
}
