import { FeaturePending } from '../../components/FeaturePending.tsx';

export default function UserLicensesPage() {
  return <FeaturePending titleKey="pages.userLicenses" />;
}
