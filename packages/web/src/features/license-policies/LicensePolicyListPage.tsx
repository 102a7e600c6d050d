import { FeaturePending } from '../../components/FeaturePending.tsx';

export default function LicensePolicyListPage() {
  return <FeaturePending titleKey="pages.licensePolicies" />;
}
