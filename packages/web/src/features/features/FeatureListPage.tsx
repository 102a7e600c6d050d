import { FeaturePending } from '../../components/FeaturePending.tsx';

export default function FeatureListPage() {
  return <FeaturePending titleKey="pages.features" />;
}
